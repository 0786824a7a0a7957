// Unit tests of the lexer, parser, formatter and resolver.
#include <gtest/gtest.h>

#include "ir/lexer.h"
#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;

namespace {

std::string fmtText(const std::string& text) {
  DiagnosticSink sink;
  auto r = formatSource(src(text), sink);
  return r ? *r : "<error: " + describe(sink) + ">";
}

const char* kHead = R"(@cake.schedule(target="sm_90a", warps=4, cluster=(2, 1, 1))
def k(lm, A: LM.tma2d, G: LM.gmem, K: LM.i32, S: LM.f32):
    pool = lm.smem(65536)
    sa = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    one = pool.view(offset=65536 - 8192, shape=(64, 64), dtype=lm.f16)
    acc = lm.regs(shape=(128, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe = lm.pipeline(stages=4)
    full = lm.barrier(prod=[load], cons=[mma], pipeline=pipe)
    empty = lm.barrier(prod=[mma], cons=[load], init_count=2, pipeline=pipe)
    epi = lm.named_barrier(roles=[mma])
    lm.assume(K % 64 == 0)
    n = lm.cdiv(K, 64)
)";

const Op& firstOp(const Block& b) {
  for (const Stmt& s : b) {
    if (s.kind == Stmt::Kind::Op) return s.op;
    if (!s.body.empty()) return firstOp(s.body);
  }
  static Op none{OpKind::FenceProxy, {}};
  return none;
}

}  // namespace

// ------------------------------------------------------------------ lexer

TEST(Lexer, PositionsAreOneBasedBytes) {
  auto r = lex::tokenize("x = 1\n  # c\nif  y:\n    z\n");
  ASSERT_GE(r.tokens.size(), 8u);
  EXPECT_EQ(r.tokens[0].text, "x");
  EXPECT_EQ(r.tokens[0].line, 1);
  EXPECT_EQ(r.tokens[0].col, 1);
  EXPECT_EQ(r.tokens[2].text, "1");
  EXPECT_EQ(r.tokens[2].col, 5);
  EXPECT_EQ(r.tokens[3].kind, lex::Tok::Newline);
  EXPECT_EQ(r.tokens[4].text, "if");
  EXPECT_EQ(r.tokens[4].line, 3);
  EXPECT_EQ(r.tokens[5].text, "y");
  EXPECT_EQ(r.tokens[5].col, 5);
  ASSERT_EQ(r.comments.size(), 1u);
  EXPECT_EQ(r.comments[0].line, 2);
  EXPECT_EQ(r.comments[0].col, 3);
  EXPECT_FALSE(r.comments[0].trailing);
}

TEST(Lexer, ColumnsCountBytesAfterUtf8) {
  auto r = lex::tokenize("x = \"é\" + y\n");
  // "é" is two bytes: the '+' is at byte column 10
  EXPECT_EQ(r.tokens[3].text, "+");
  EXPECT_EQ(r.tokens[3].col, 10);
  EXPECT_EQ(r.tokens[2].str, "é");
}

TEST(Lexer, IndentDedent) {
  auto r = lex::tokenize("a:\n    b\n        c\nd\n");
  int indents = 0, dedents = 0;
  for (auto& t : r.tokens) {
    indents += t.kind == lex::Tok::Indent;
    dedents += t.kind == lex::Tok::Dedent;
  }
  EXPECT_EQ(indents, 2);
  EXPECT_EQ(dedents, 2);
}

TEST(Lexer, Numbers) {
  auto r = lex::tokenize("0x1F 0o17 0b101 1_000 2.5 1e3 9223372036854775807 9223372036854775808\n");
  EXPECT_EQ(r.tokens[0].ival, 31);
  EXPECT_EQ(r.tokens[1].ival, 15);
  EXPECT_EQ(r.tokens[2].ival, 5);
  EXPECT_EQ(r.tokens[3].ival, 1000);
  EXPECT_EQ(r.tokens[4].kind, lex::Tok::Float);
  EXPECT_DOUBLE_EQ(r.tokens[4].fval, 2.5);
  EXPECT_DOUBLE_EQ(r.tokens[5].fval, 1000.0);
  EXPECT_EQ(r.tokens[6].ival, INT64_MAX);
  EXPECT_FALSE(r.tokens[6].overflow);
  EXPECT_TRUE(r.tokens[7].overflow);
}

TEST(Lexer, StringsAndEscapes) {
  auto r = lex::tokenize("'a\\n' \"b\\x41\" r'c\\n' '''d\ne'''\n");
  EXPECT_EQ(r.tokens[0].str, "a\n");
  EXPECT_EQ(r.tokens[1].str, "bA");
  EXPECT_EQ(r.tokens[2].str, "c\\n");
  EXPECT_EQ(r.tokens[3].str, "d\ne");
}

TEST(Lexer, CrLfLineEndings) {
  DiagnosticSink sink;
  std::string text = kPaperFragment;
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto m = compileModule(src(crlf), {}, sink);
  EXPECT_TRUE(m) << describe(sink);
}

TEST(Lexer, Utf8BomIsSkipped) {
  DiagnosticSink sink;
  auto m = compileModule(src(std::string("\xEF\xBB\xBF") + kPaperFragment), {}, sink);
  EXPECT_TRUE(m) << describe(sink);
}

// ----------------------------------------------------------------- parser

TEST(Parser, PrecedenceAndAssociativity) {
  DiagnosticSink sink;
  auto m = ast::parse(src("x = a - b - c * d // e % f\ny = not a < b and c or d\nz = -a[1][0:2, :]\n"), sink);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_EQ(ast::printExpr(*m->body[0]->value), "a - b - c * d // e % f");
  const ast::Expr& x = *m->body[0]->value;
  EXPECT_EQ(x.text, "-");
  EXPECT_EQ(x.args[0]->text, "-");  // left-associative
  const ast::Expr& y = *m->body[1]->value;
  EXPECT_EQ(y.kind, ast::ExprKind::BoolOp);
  EXPECT_EQ(y.text, "or");
  const ast::Expr& z = *m->body[2]->value;
  EXPECT_EQ(z.kind, ast::ExprKind::UnaryOp);
  EXPECT_EQ(z.args[0]->kind, ast::ExprKind::Subscript);
  EXPECT_EQ(z.args[0]->args[1]->kind, ast::ExprKind::Tuple);
  EXPECT_EQ(z.args[0]->args[1]->args[0]->kind, ast::ExprKind::Slice);
}

TEST(Parser, EqualityIgnoresLocationsAndSpelling) {
  DiagnosticSink sink;
  auto a = ast::parse(src("x = f(1, k=(2,3))   # c\n"), sink);
  auto b = ast::parse(src("\n\nx=f( 0x1 ,k=(2 , 3 , ) )\n"), sink);
  auto c = ast::parse(src("x = f(1, k=(2, 4))\n"), sink);
  ASSERT_TRUE(a && b && c);
  EXPECT_TRUE(ast::equal(*a, *b));
  EXPECT_FALSE(ast::equal(*a, *c));
}

TEST(Parser, ElifChainsAndOneLineSuites) {
  DiagnosticSink sink;
  auto m = ast::parse(src("if a: x()\nelif b:\n    y()\nelse: z()\n"), sink);
  ASSERT_TRUE(m) << describe(sink);
  ASSERT_EQ(m->body.size(), 1u);
  EXPECT_EQ(m->body[0]->branches.size(), 3u);
  EXPECT_FALSE(m->body[0]->branches[2].cond);
}

TEST(Parser, ImportsAndDocstring) {
  DiagnosticSink sink;
  std::string text = std::string("\"\"\"Doc.\"\"\"\nimport cake\nfrom cake import LM, lm as b\nimport cake.lm as L\n") +
                     kPaperFragment;
  auto m = compileModule(src(text), {}, sink);
  EXPECT_TRUE(m) << describe(sink);
}

TEST(Parser, DeepButLegalNestingIsFine) {
  std::string e = std::string(150, '(') + "1" + std::string(150, ')');
  DiagnosticSink sink;
  EXPECT_TRUE(ast::parse(src("x = " + e + "\n"), sink)) << describe(sink);
}

TEST(Parser, NeverThrowsOnTruncations) {
  // every prefix of a valid file is either accepted or rejected with a located error
  std::string text = kPaperFragment;
  for (size_t n = 0; n <= text.size(); n += 3) {
    DiagnosticSink sink;
    auto m = compileModule(src(text.substr(0, n)), {}, sink);
    if (!m) {
      ASSERT_FALSE(sink.findings().empty()) << n;
      EXPECT_TRUE(sink.findings().front().range.valid()) << n;
    }
    DiagnosticSink s2;
    formatSource(src(text.substr(0, n)), s2);
  }
}

// -------------------------------------------------------------- formatter

TEST(Formatter, NormalizesSpacingAndKeepsComments) {
  std::string in =
      "# header\n"
      "import cake\n"
      "\n"
      "\n"
      "\n"
      "@cake.schedule( target = 'sm_90a' )  # expect: pass\n"
      "def k(lm,K:LM.i32):\n"
      "  pool=lm.smem( 1024 )   # pool\n"
      "  # own line\n"
      "  x=(K+1)*2\n"
      "  load=lm.role(warps=[ 0 ,1 ])\n"
      "  with load :\n"
      "      for i in lm.range(0,K,2):\n"
      "          lm.fence_proxy()  # expect-error: proxy.missing-fence\n"
      "# trailing\n";
  std::string want =
      "# header\n"
      "import cake\n"
      "\n"
      "\n"
      "@cake.schedule(target='sm_90a')  # expect: pass\n"
      "def k(lm, K: LM.i32):\n"
      "    pool = lm.smem(1024)  # pool\n"
      "    # own line\n"
      "    x = (K + 1) * 2\n"
      "    load = lm.role(warps=[0, 1])\n"
      "    with load:\n"
      "        for i in lm.range(0, K, 2):\n"
      "            lm.fence_proxy()  # expect-error: proxy.missing-fence\n"
      "# trailing\n";
  EXPECT_EQ(fmtText(in), want);
  EXPECT_EQ(fmtText(want), want);
}

TEST(Formatter, JoinsContinuationLinesAndKeepsTheirComments) {
  std::string in = "x = f(1,  # a\n      2)  # b\n";
  EXPECT_EQ(fmtText(in), "x = f(1, 2)  # a  # b\n");
}

TEST(Formatter, KeepsNeededAndWrittenParentheses) {
  EXPECT_EQ(fmtText("x = (a+b)*c\ny = a+(b*c)\nz = a-(b-c)\nw = f(init=(s==0))\n"),
            "x = (a + b) * c\ny = a + (b * c)\nz = a - (b - c)\nw = f(init=(s == 0))\n");
  EXPECT_EQ(fmtText("t = 1,\nu = ()\nv = x[(1, 2)]\n"), "t = (1,)\nu = ()\nv = x[1, 2]\n");
}

TEST(Formatter, EmptyAndCommentOnlyFiles) {
  EXPECT_EQ(fmtText(""), "");
  EXPECT_EQ(fmtText("# only\n\n\n# two\n"), "# only\n\n\n# two\n");
}

TEST(Formatter, ElseBranchesAndDocstrings) {
  std::string in = "def f(lm):\n    \"\"\"Doc\n    more.\"\"\"\n    if a:\n        pass\n    elif b:  # e\n        pass\n    else:\n        pass\n";
  EXPECT_EQ(fmtText(in), in);
}

// --------------------------------------------------------------- resolver

TEST(Resolver, DecoratorTargetWarpsCluster) {
  DiagnosticSink sink;
  auto m = compile(std::string(kHead) + "    with load:\n        lm.fence_proxy()\n", sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  EXPECT_EQ(s.target, Target::SM90a);
  EXPECT_EQ(s.warps, 4);
  EXPECT_EQ(s.cluster[0], 2);
  EXPECT_EQ(s.cluster[1], 1);
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[1].type, ParamType::Gmem);
  EXPECT_EQ(s.params[3].type, ParamType::F32);
  EXPECT_EQ(s.views[0].swizzle, Swizzle::B128);
  EXPECT_EQ(s.views[0].stages, 4);
  EXPECT_EQ(s.views[1].stages, 1);
  ASSERT_TRUE(s.views[1].offset);
  EXPECT_EQ(s.views[1].offset->kind, ExprKind::Const);
  EXPECT_EQ(s.views[1].offset->value, 65536 - 8192);
  EXPECT_EQ(s.roles[1].group, 4);
  EXPECT_EQ(s.roles[1].instanceCount(), 2);
  EXPECT_EQ(s.roles[1].regs, 232);
  // barrier count defaults to the pipeline's stages
  EXPECT_EQ(s.barriers[0].count, 4);
  EXPECT_EQ(s.barriers[0].init_count, 1);
  EXPECT_EQ(s.barriers[1].init_count, 2);
  EXPECT_EQ(s.named_barriers[0].roles, std::vector<int>{1});
  ASSERT_EQ(s.assumes.size(), 1u);
  EXPECT_EQ(s.assumes[0].cond->kind, ExprKind::Eq);
}

TEST(Resolver, TargetOverride) {
  DiagnosticSink sink;
  auto m = compile(kPaperFragment, sink, Target::SM100a);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_EQ(m->schedules[0].target, Target::SM100a);
}

TEST(Resolver, TargetMismatch) {
  DiagnosticSink sink;
  std::string text = std::string(kHead) + "    with load:\n        lm.fence_proxy()\n";
  auto m = compile(text, sink, Target::SM100a);
  EXPECT_FALSE(m);
  ASSERT_FALSE(sink.findings().empty());
  EXPECT_EQ(sink.findings()[0].rule, "type.target-mismatch");
  EXPECT_EQ(sink.findings()[0].range.line, 1);
  EXPECT_EQ(sink.findings()[0].range.col, 23);
  // same target: fine
  DiagnosticSink s2;
  EXPECT_TRUE(compile(text, s2, Target::SM90a)) << describe(s2);
}

// `union=` (docs/ir-extensions.md "Union members") names a view declared
// before; the members of a chain are one union, a view outside it is not.
// The formatter keeps the argument.
TEST(Resolver, UnionMembersFormOneUnion) {
  const std::string text =
      "@cake.schedule(target=\"sm_80\")\n"
      "def k(lm, X: LM.gmem):\n"
      "    pool = lm.smem(4096)\n"
      "    dc = pool.view(offset=0, shape=(8, 128), dtype=lm.i32)\n"
      "    rk = pool.view(offset=0, shape=(32, 32), dtype=lm.i32, union=dc)\n"
      "    up = pool.view(offset=1024, shape=(4, 4), dtype=lm.f32, stages=2, union=rk)\n"
      "    ex = pool.view(offset=0, shape=(1, 128), dtype=lm.i32, stages=4)\n";
  DiagnosticSink sink;
  auto m = compile(text, sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  ASSERT_EQ(s.views.size(), 4u);
  EXPECT_EQ(s.views[0].union_with, -1);
  EXPECT_EQ(s.views[1].union_with, 0);
  EXPECT_EQ(s.views[2].union_with, 1);
  EXPECT_EQ(unionRoot(s, 2), 0);
  EXPECT_TRUE(sameUnion(s, 0, 2));
  EXPECT_TRUE(sameUnion(s, 1, 2));
  EXPECT_FALSE(sameUnion(s, 0, 0));  // one view is no pair
  EXPECT_FALSE(sameUnion(s, 0, 3));
  EXPECT_FALSE(sameUnion(s, 3, -1));
  EXPECT_EQ(fmtText(text), text);
}

TEST(Resolver, LocalIntegersAreSubstituted) {
  DiagnosticSink sink;
  auto m = compile(std::string(kHead) +
                       "    with mma:\n"
                       "        m0 = 64 * lm.instance()\n"
                       "        for k in lm.range(0, n):\n"
                       "            kk = k + 1\n"
                       "            lm.wait(full, iter=kk)\n"
                       "            lm.mma(acc, sa[k][m0:m0 + 64, :], sa[k], init=(k == 0))\n"
                       "            lm.arrive(empty, iter=k)\n"
                       "        lm.sync(epi)\n",
                   sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  const Stmt& loop = s.bodies[0].body[0];
  ASSERT_EQ(loop.kind, Stmt::Kind::For);
  EXPECT_EQ(loop.hi->kind, ExprKind::CDiv);
  EXPECT_EQ(loop.hi->args[0]->kind, ExprKind::Param);
  EXPECT_EQ(loop.hi->args[0]->index, 2);  // K
  const Op& wait = loop.body[0].op;
  EXPECT_EQ(wait.sel.mode, SlotSel::Mode::Iter);
  EXPECT_EQ(wait.sel.index->kind, ExprKind::Add);
  EXPECT_EQ(wait.sel.index->args[0]->kind, ExprKind::LoopVar);
  const Op& mma = loop.body[1].op;
  ASSERT_EQ(mma.src.slices.size(), 2u);
  EXPECT_EQ(mma.src.slices[0].lo->kind, ExprKind::Mul);
  EXPECT_EQ(mma.src.slices[0].lo->args[1]->kind, ExprKind::Instance);
  EXPECT_FALSE(mma.src.slices[1].lo);
  EXPECT_FALSE(mma.src.slices[1].hi);
  EXPECT_EQ(loop.body[2].op.count->value, 1);
  EXPECT_EQ(s.bodies[0].body[1].op.kind, OpKind::Sync);
}

TEST(Resolver, ConstantFoldingUsesPythonSemantics) {
  DiagnosticSink sink;
  auto m = compile(std::string(kHead) +
                       "    a = -7 // 2\n"
                       "    b = -7 % 3\n"
                       "    c = 7 % -3\n"
                       "    d = lm.cdiv(7, 2)\n"
                       "    e = min(3, 1, 2) + max(4, 5)\n"
                       "    f = 1 < 2 < 3\n"
                       "    g = not (1 and 0)\n"
                       "    t = lm.tmem(cols=a * 1000 + b * 100 + c * 10 + d, width=e * 10 + f + g, shape=(1,), dtype=lm.f32)\n",
                   sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  // a=-4, b=2, c=-2, d=4
  EXPECT_EQ(s.tmems[0].cols->value, -4000 + 200 - 20 + 4);
  EXPECT_EQ(s.tmems[0].width->value, 6 * 10 + 1 + 1);
}

TEST(Resolver, IfElifElseNest) {
  DiagnosticSink sink;
  auto m = compile(std::string(kHead) +
                       "    with load:\n"
                       "        if K > 0:\n            lm.fence_proxy()\n"
                       "        elif K < 0:\n            lm.cp_async_commit()\n"
                       "        else:\n            lm.tma_store_commit()\n",
                   sink);
  ASSERT_TRUE(m) << describe(sink);
  const Stmt& st = m->schedules[0].bodies[0].body[0];
  ASSERT_EQ(st.kind, Stmt::Kind::If);
  ASSERT_EQ(st.orelse.size(), 1u);
  EXPECT_EQ(st.orelse[0].kind, Stmt::Kind::If);
  ASSERT_EQ(st.orelse[0].orelse.size(), 1u);
  EXPECT_EQ(st.orelse[0].orelse[0].op.kind, OpKind::TmaStoreCommit);
}

TEST(Resolver, AllOpsResolve) {
  DiagnosticSink sink;
  auto m = compile(std::string(kHead) +
                       "    st = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stage=2)\n"
                       "    with load:\n"
                       "        for k in lm.range(0, n):\n"
                       "            lm.wait(empty, iter=k - 4)\n"
                       "            lm.expect_tx(full, 16384, iter=k)\n"
                       "            sa.tma_load(A, coords=(k * 64, 0), iter=k, barrier=full)\n"
                       "        sa.cp_async(G, coords=(0, 0), stage=1)\n"
                       "        lm.cp_async_commit()\n"
                       "        lm.cp_async_wait(pending=1)\n"
                       "    with mma:\n"
                       "        lm.wait(full, stage=0, phase=2)\n"
                       "        lm.mma(acc, sa[0], sa[0])\n"
                       "        lm.mma_commit()\n"
                       "        lm.mma_commit(empty, iter=0)\n"
                       "        lm.mma_wait(0)\n"
                       "        lm.fill(acc, -1.5)\n"
                       "        lm.unary(acc, acc, op=\"exp2\")\n"
                       "        lm.binary(acc, acc, 0.5, op=\"mul\")\n"
                       "        lm.reduce(acc, acc, op=\"max\", axis=1)\n"
                       "        lm.copy(one, acc)\n"
                       "        lm.copy(G, acc, coords=(0, 0))\n"
                       "        lm.fence_proxy()\n"
                       "        one.tma_store(A, coords=(0, 0))\n"
                       "        lm.tma_store_commit()\n"
                       "        lm.tma_store_wait(pending=0)\n"
                       "        lm.bar_arrive(epi)\n"
                       "        lm.arrive(empty, iter=0, count=2)\n",
                   sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  EXPECT_EQ(s.views[2].stages, 2);
  const Block& mma = s.bodies[1].body;
  ASSERT_EQ(mma.size(), 17u);
  EXPECT_EQ(mma[0].op.sel.mode, SlotSel::Mode::Stage);
  ASSERT_TRUE(mma[0].op.sel.phase);
  EXPECT_EQ(mma[0].op.sel.phase->value, 2);
  EXPECT_EQ(mma[2].op.barrier, -1);
  EXPECT_EQ(mma[3].op.barrier, 1);
  EXPECT_EQ(mma[4].op.pending->value, 0);
  EXPECT_DOUBLE_EQ(mma[5].op.fill_value_f, -1.5);
  EXPECT_EQ(mma[6].op.fn, ElemFn::Exp2);
  EXPECT_EQ(mma[7].op.src2.kind, BufferRef::Kind::Scalar);
  EXPECT_DOUBLE_EQ(mma[7].op.src2.scalar_f, 0.5);
  EXPECT_EQ(mma[8].op.axis, 1);
  EXPECT_EQ(mma[9].op.dst.kind, BufferRef::Kind::View);
  EXPECT_EQ(mma[10].op.dst.kind, BufferRef::Kind::Param);
  EXPECT_EQ(mma[10].op.coords.size(), 2u);
  EXPECT_EQ(mma[12].op.kind, OpKind::TmaStore);
  EXPECT_EQ(mma[12].op.dst.kind, BufferRef::Kind::Param);
  EXPECT_EQ(mma[12].op.src.kind, BufferRef::Kind::View);
  EXPECT_EQ(mma[16].op.count->value, 2);
  const Op& cp = s.bodies[0].body[1].op;
  EXPECT_EQ(cp.kind, OpKind::CpAsync);
  EXPECT_EQ(cp.src.kind, BufferRef::Kind::Param);
  EXPECT_EQ(firstOp(s.bodies[0].body).kind, OpKind::Wait);
}

TEST(Resolver, SeveralSchedulesAndErrorsInEach) {
  DiagnosticSink sink;
  std::string text =
      "@cake.schedule()\ndef a(lm):\n    x = y\n\n"
      "@cake.schedule()\ndef b(lm):\n    z = w\n";
  EXPECT_FALSE(compile(text, sink));
  ASSERT_EQ(sink.findings().size(), 2u) << describe(sink);
  EXPECT_EQ(sink.findings()[0].range.line, 3);
  EXPECT_EQ(sink.findings()[1].range.line, 7);
}

TEST(Resolver, NoCascadeAfterAFailedDeclaration) {
  DiagnosticSink sink;
  std::string text = std::string(kHead) + "    bad = lm.smem(size=4)\n    v = bad.view(offset=0, shape=(1,), dtype=lm.f32)\n";
  EXPECT_FALSE(compile(text, sink));
  EXPECT_EQ(sink.findings().size(), 1u) << describe(sink);
}

TEST(Resolver, EmptyInputHasNoSchedule) {
  DiagnosticSink sink;
  EXPECT_FALSE(compile("", sink));
  ASSERT_EQ(sink.findings().size(), 1u);
  EXPECT_EQ(sink.findings()[0].range.line, 1);
  EXPECT_EQ(sink.findings()[0].range.col, 1);
  EXPECT_NE(sink.findings()[0].message.find("no @cake.schedule function"), std::string::npos);
}

TEST(Rules, EveryFrontEndRuleHasTitleSummaryAndPage) {
  for (const RuleInfo& r : frontendRules()) {
    EXPECT_TRUE(r.id.rfind("syntax.", 0) == 0 || r.id.rfind("type.", 0) == 0) << r.id;
    EXPECT_FALSE(r.title.empty()) << r.id;
    EXPECT_GT(r.summary.size(), 40u) << r.id;
    EXPECT_EQ(r.severity, Severity::Error);
    auto page = sourceDir() / "docs/rules" / (std::string(r.id) + ".md");
    EXPECT_TRUE(std::filesystem::exists(page)) << page;
  }
}

TEST(Formatter, AttributeOfANumberStaysParseable) {
  std::string once = fmtText("x = 1 .real\ny = 1.5 .imag\n");
  EXPECT_EQ(once, "x = (1).real\ny = (1.5).imag\n");
  EXPECT_EQ(fmtText(once), once);
}

// 3,000-deep nesting, generated here rather than stored (the file would be
// megabytes of indentation); tests/frontend/malformed/too_deep_blocks_300.cake
// is the stored case for the CLI.
TEST(Limits, ThreeThousandNestedBlocks) {
  for (int indent : {1, 4}) {
    std::string s = "@cake.schedule()\ndef k(lm, K: LM.i32):\n    load = lm.role(warps=[0])\n    with load:\n";
    int base = 8;
    for (int i = 0; i < 3000; ++i) s += std::string(base + i * indent, ' ') + "if K > 0:\n";
    s += std::string(base + 3000 * indent, ' ') + "lm.fence_proxy()\n";
    DiagnosticSink sink;
    EXPECT_FALSE(compile(s, sink));
    ASSERT_EQ(sink.findings().size(), 1u);
    EXPECT_EQ(sink.findings()[0].rule, "syntax.too-deep");
    // the 199th `if` (depth: def 1, with 2, ifs from 3) is the first too deep
    EXPECT_EQ(sink.findings()[0].range.line, 5 + 198);
    EXPECT_EQ(sink.findings()[0].range.col, base + 198 * indent + 1);
    DiagnosticSink fs;
    EXPECT_FALSE(formatSource(src(s), fs));
    EXPECT_EQ(fs.findings().at(0).rule, "syntax.too-deep");
  }
}

TEST(Limits, ThreeThousandNestedParenthesesBracketsAndCalls) {
  for (auto [open, close] : {std::pair{"(", ")"}, std::pair{"[", "]"}, std::pair{"f(", ")"}, std::pair{"-", ""},
                             std::pair{"not ", ""}, std::pair{"x[", "]"}}) {
    std::string e;
    for (int i = 0; i < 3000; ++i) e += open;
    e += "1";
    for (int i = 0; i < 3000; ++i) e += close;
    DiagnosticSink sink;
    EXPECT_FALSE(compile("@cake.schedule()\ndef k(lm):\n    x = " + e + "\n", sink)) << open;
    ASSERT_FALSE(sink.findings().empty()) << open;
    EXPECT_EQ(sink.findings()[0].rule, "syntax.too-deep") << open;
    EXPECT_EQ(sink.findings()[0].range.line, 3) << open;
  }
}

TEST(Limits, LongFlatInputsAreFine) {
  // long but flat: many statements, long lists, long comparison-free lines
  std::string s = "@cake.schedule()\ndef k(lm):\n    load = lm.role(warps=[0])\n";
  for (int i = 0; i < 5000; ++i) s += "    x" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  s += "    with load:\n";
  for (int i = 0; i < 5000; ++i) s += "        lm.fence_proxy()\n";
  DiagnosticSink sink;
  auto m = compile(s, sink);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_EQ(m->schedules[0].bodies[0].body.size(), 5000u);
}
