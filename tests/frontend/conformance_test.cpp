// Spellings that ../shared/IR.md permits and a reader of it would write
// (docs/ir-conformance.md): a .cake file is Python 3, so tab indentation,
// arguments by position in IR.md's order and Python's range(stop) all mean
// what they mean in Python. Each positive case is paired with what stays
// invalid, as a located error.
#include <gtest/gtest.h>

#include "ir/expr_canon.h"
#include "ir/lexer.h"
#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;

namespace conformance_test {

// `text` with every 4 spaces of leading indentation turned into one tab.
std::string tabIndented(const std::string& text) {
  std::string out;
  bool lineStart = true;
  for (size_t i = 0; i < text.size();) {
    if (lineStart && text.compare(i, 4, "    ") == 0) {
      out += '\t';
      i += 4;
      continue;
    }
    lineStart = text[i] == '\n';
    out += text[i++];
  }
  return out;
}

const Finding* firstError(const std::string& text, DiagnosticSink& sink) {
  auto m = compile(text, sink, Target::SM100a);
  if (m || sink.findings().empty()) return nullptr;
  return &sink.findings().front();
}

// The declarations of a small sm_90a schedule, written `kw` (by keyword) or
// by position; the body is the same.
std::string schedule(bool positional) {
  std::string decls =
      positional ? "    sa = pool.view(0, (64, 64), lm.bf16, 2, \"128B\")\n"
                   "    acc = lm.regs((64, 64), lm.f32)\n"
                   "    load = lm.role([0], None, 40)\n"
                   "    math = lm.role([4, 5, 6, 7, 8, 9, 10, 11], 4, 232)\n"
                   "    pipe = lm.pipeline(2)\n"
                   "    full = lm.barrier(2, [load], [math], 1, pipe)\n"
                   "    empty = lm.barrier(2, [math], [load], 2)\n"
                 : "    sa = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle=\"128B\")\n"
                   "    acc = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
                   "    load = lm.role(warps=[0], regs=40)\n"
                   "    math = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)\n"
                   "    pipe = lm.pipeline(stages=2)\n"
                   "    full = lm.barrier(count=2, prod=[load], cons=[math], init_count=1, pipeline=pipe)\n"
                   "    empty = lm.barrier(count=2, prod=[math], cons=[load], init_count=2)\n";
  std::string load = positional ? "            sa.tma_load(A, (0, k * 64), iter=k, barrier=full)\n"
                                : "            sa.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)\n";
  std::string mma = positional ? "            lm.mma(acc, sa[k], sa[k], k == 0)\n"
                               : "            lm.mma(acc, sa[k], sa[k], init=(k == 0))\n";
  return "@cake.schedule(target=\"sm_90a\")\n"
         "def k(lm, A: LM.tma2d, K: LM.i32):\n"
         "    pool = lm.smem(65536)\n" +
         decls +
         "    with load:\n"
         "        for k in lm.range(K):\n"
         "            lm.wait(empty, iter=k - 2)\n" +
         load +
         "    with math:\n"
         "        for k in lm.range(0, K):\n"
         "            lm.wait(full, iter=k)\n" +
         mma +
         "            lm.mma_commit()\n"
         "            lm.mma_wait(0)\n"
         "            lm.arrive(empty, iter=k)\n";
}

// The n-th op (from 0) of a block, depth first.
const Op* opAt(const Block& b, int n) {
  const Op* found = nullptr;
  forEachOp(b, [&](const Stmt& s) {
    if (n-- == 0) found = &s.op;
  });
  return found;
}

}  // namespace conformance_test

TEST(Conformance, TabIndentationIsPythons) {
  std::string tabs = conformance_test::tabIndented(kPaperFragment);
  ASSERT_NE(tabs.find("\n\t\tfor stage"), std::string::npos);
  DiagnosticSink sink;
  auto spaced = ast::parse(src(kPaperFragment), sink);
  auto tabbed = ast::parse(src(tabs), sink);
  ASSERT_TRUE(spaced && tabbed) << describe(sink);
  EXPECT_TRUE(ast::equal(*spaced, *tabbed));
  // A block indented by a tab and continued by eight spaces is one block in
  // Python only if a tab is 8 columns: Python's TabError, a located error.
  std::string mixed = tabs;
  mixed.replace(mixed.find("\t\t\tlm.fence_proxy"), 3, "\t\t        ");
  DiagnosticSink msink;
  const Finding* f = conformance_test::firstError(mixed, msink);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->rule, "syntax.error");
  EXPECT_EQ(f->range.line, 17);
  EXPECT_EQ(f->range.col, 1);
  EXPECT_NE(f->message.find("tabs and spaces"), std::string::npos);
}

TEST(Conformance, ArgumentsByPositionInIrMdOrder) {
  DiagnosticSink sink;
  auto kw = compile(conformance_test::schedule(false), sink);
  auto pos = compile(conformance_test::schedule(true), sink);
  ASSERT_TRUE(kw && pos) << describe(sink);
  const Schedule& a = kw->schedules[0];
  const Schedule& b = pos->schedules[0];
  EXPECT_EQ(b.views[0].stages, 2);
  EXPECT_EQ(b.views[0].swizzle, a.views[0].swizzle);
  EXPECT_EQ(b.views[0].dtype, DType::BF16);
  EXPECT_EQ(b.regs[0].dtype, DType::F32);
  EXPECT_EQ(b.roles[1].group, 4);
  EXPECT_EQ(b.roles[0].regs, std::optional<int>(40));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(b.barriers[i].count, a.barriers[i].count);
    EXPECT_EQ(b.barriers[i].prod, a.barriers[i].prod);
    EXPECT_EQ(b.barriers[i].cons, a.barriers[i].cons);
    EXPECT_EQ(b.barriers[i].init_count, a.barriers[i].init_count);
    EXPECT_EQ(b.barriers[i].pipeline, a.barriers[i].pipeline);
  }
  const Op* la = conformance_test::opAt(a.bodies[0].body, 1);
  const Op* lb = conformance_test::opAt(b.bodies[0].body, 1);
  ASSERT_TRUE(la && lb);
  EXPECT_EQ(lb->kind, OpKind::TmaLoad);
  EXPECT_EQ(lb->coords.size(), la->coords.size());
  const Op* mb = conformance_test::opAt(b.bodies[1].body, 1);
  ASSERT_TRUE(mb);
  EXPECT_EQ(mb->kind, OpKind::Mma);
  EXPECT_TRUE(mb->init);
  // lm.range(K) is Python's range(stop): from 0.
  ASSERT_EQ(b.bodies[0].body[0].kind, Stmt::Kind::For);
  EXPECT_EQ(b.bodies[0].body[0].lo->kind, ExprKind::Const);
  EXPECT_EQ(b.bodies[0].body[0].lo->value, 0);
}

TEST(Conformance, PositionsPastIrMdsOrderStayLocatedErrors) {
  // After stage=/iter= IR.md gives no position: the selector is a keyword.
  std::string text = conformance_test::schedule(false);
  text.replace(text.find("lm.wait(full, iter=k)"), 21, "lm.wait(full, k)");
  DiagnosticSink sink;
  auto m = compile(text, sink);
  ASSERT_FALSE(m);
  EXPECT_EQ(sink.findings().front().rule, "type.unknown-argument") << describe(sink);
  // A position and a keyword for one argument: Python's "multiple values".
  text = conformance_test::schedule(true);
  text.replace(text.find("pipe = lm.pipeline(2)"), 21, "pipe = lm.pipeline(2, stages=2)");
  DiagnosticSink dsink;
  ASSERT_FALSE(compile(text, dsink));
  EXPECT_EQ(dsink.findings().front().rule, "type.duplicate") << describe(dsink);
}

TEST(Conformance, AnF32ParameterIsAScalarOperand) {
  // IR.md: LM.f32 is a scalar parameter; the scalar operand of lm.binary
  // (docs/ir-extensions.md) takes one, as an attention kernel scales S.
  const std::string head =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm, X: LM.gmem, K: LM.i32, scale: LM.f32):\n"
      "    s = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
      "    w = lm.role(warps=[0, 1, 2, 3])\n"
      "    with w:\n"
      "        lm.fill(s, 1)\n";
  DiagnosticSink sink;
  auto m = compile(head + "        lm.binary(s, s, scale, op=\"mul\")\n", sink);
  ASSERT_TRUE(m) << describe(sink);
  const Op* mul = conformance_test::opAt(m->schedules[0].bodies[0].body, 1);
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->src2.kind, BufferRef::Kind::Scalar);
  EXPECT_EQ(mul->src2.index, 2);
  EXPECT_FALSE(mul->src2.scalar);
  // Still no buffer: a copy from it is a located type.mismatch.
  DiagnosticSink csink;
  ASSERT_FALSE(compile(head + "        lm.copy(s, scale)\n", csink));
  EXPECT_EQ(csink.findings().front().rule, "type.mismatch") << describe(csink);
  EXPECT_EQ(csink.findings().front().range.line, 7);
  EXPECT_EQ(csink.findings().front().range.col, 20);
}

TEST(Conformance, APipelineIsADepthViewsAndBarriersShare) {
  // IR.md: lm.pipeline(stages=) is "a pipeline depth that views and
  // barriers can share": a view takes it as pipeline= or stages=, and its
  // depth is pipe.stages in any integer expression.
  const std::string head =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm, A: LM.tma2d, K: LM.i32):\n"
      "    pool = lm.smem(65536)\n"
      "    pipe = lm.pipeline(stages=3)\n"
      "    load = lm.role(warps=[0])\n";
  const std::string decls =
      "    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, pipeline=pipe)\n"
      "    b = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=pipe)\n"
      "    c = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, pipeline=pipe)\n"
      "    full = lm.barrier(count=pipe.stages, prod=[load], cons=[load])\n"
      "    with load:\n"
      "        for k in lm.range(0, K):\n"
      "            lm.wait(full, iter=k - pipe.stages + full.count - a.stages)\n";
  DiagnosticSink sink;
  auto m = compile(head + decls, sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  EXPECT_EQ(s.views[0].stages, 3);
  EXPECT_EQ(s.views[1].stages, 3);
  EXPECT_EQ(s.views[2].stages, 2);  // stages= given: it wins, as count= does for a barrier
  EXPECT_EQ(s.barriers[0].count, 3);
  // A declaration has no other attribute; a role is no depth.
  DiagnosticSink asink;
  ASSERT_FALSE(compile(head + "    n = pipe.depth\n", asink));
  EXPECT_EQ(asink.findings().front().rule, "type.unknown-op") << describe(asink);
  DiagnosticSink rsink;
  ASSERT_FALSE(compile(head + "    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=load)\n", rsink));
  EXPECT_EQ(rsink.findings().front().rule, "type.mismatch") << describe(rsink);
  EXPECT_EQ(rsink.findings().front().range.line, 6);
  EXPECT_EQ(rsink.findings().front().range.col, 67);
}

namespace conformance_test {

TEST(Conformance, APositiveSymbolicLoopStepCountsTripsFromZero) {
  // IR.md: `for v in lm.range(lo, hi[, step])`, no word that the step is a
  // constant; a persistent kernel strides its tiles by the grid. The loop
  // becomes one over its trips n in [0, lm.cdiv(max(hi - lo, 0), step)) with
  // v = lo + n * step: Python's range(lo, hi, step) for every value.
  const std::string text =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm, A: LM.tma2d, T: LM.i32, S: LM.i32):\n"
      "    pool = lm.smem(16384)\n"
      "    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)\n"
      "    load = lm.role(warps=[0])\n"
      "    full = lm.barrier(count=1, prod=[load], cons=[load])\n"
      "    with load:\n"
      "        for tile in lm.range(lm.block_idx(0), T, 2 * lm.grid_dim(0)):\n"
      "            v.tma_load(A, coords=(tile, 0), stage=0, barrier=full)\n"
      "            lm.wait(full, stage=0)\n";
  DiagnosticSink sink;
  auto m = compile(text, sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  const Stmt& loop = s.bodies[0].body[0];
  ASSERT_EQ(loop.kind, Stmt::Kind::For);
  EXPECT_EQ(constValue(loop.lo), 0);
  EXPECT_EQ(constValue(loop.step), 1);
  EXPECT_EQ(s.loop_vars[loop.loop_var].name, "tile#trip");
  const ExprPtr& coord = loop.body[0].op.coords[0];
  for (int64_t b : {0, 1, 3})
    for (int64_t g : {1, 2, 4})
      for (int64_t t : {0, 1, 5, 9}) {
        std::vector<int64_t> want;  // Python's range(b, t, 2 * g)
        for (int64_t x = b; x < t; x += 2 * g) want.push_back(x);
        EvalEnv env;
        env.params[1] = t;  // T (A is parameter 0)
        env.block_idx[0] = b;
        env.grid_dim[0] = g;
        auto trips = evaluate(*loop.hi, env);
        ASSERT_TRUE(trips);
        ASSERT_EQ(*trips, static_cast<int64_t>(want.size())) << b << " " << g << " " << t;
        for (int64_t n = 0; n < *trips; ++n) {
          env.loop_vars[loop.loop_var] = n;
          EXPECT_EQ(evaluate(*coord, env), want[n]);
        }
      }
  // A step whose sign the front end cannot tell stays a located error.
  std::string param_step = text;
  param_step.replace(param_step.find("2 * lm.grid_dim(0)"), 18, "S");
  DiagnosticSink psink;
  ASSERT_FALSE(compile(param_step, psink));
  EXPECT_EQ(psink.findings().front().rule, "type.non-constant") << describe(psink);
  EXPECT_EQ(psink.findings().front().range.line, 8);
}

TEST(Conformance, AGridStridedLoopsTripNumberReadBackIsItsTripVariable) {
  // CUDA's persistent kernels recover their trip number from the strided
  // tile index: t = (tile - blockIdx.x) / gridDim.x. With tile = lo + n *
  // step that is n for every value (the step is positive), so the front end
  // reads it as the loop's own trip variable; any other spelling (another
  // start, another divisor) stays as written.
  const std::string text =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm, A: LM.tma2d, T: LM.i32):\n"
      "    pool = lm.smem(16384)\n"
      "    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)\n"
      "    load = lm.role(warps=[0])\n"
      "    full = lm.barrier(count=1, prod=[load], cons=[load])\n"
      "    with load:\n"
      "        for tile in lm.range(lm.block_idx(0) + 1, T, 2 * lm.grid_dim(0)):\n"
      "            t = (tile - (lm.block_idx(0) + 1)) // (2 * lm.grid_dim(0))\n"
      "            u = (tile - lm.block_idx(0)) // (2 * lm.grid_dim(0))\n"
      "            w = (tile - (lm.block_idx(0) + 1)) // lm.grid_dim(0)\n"
      "            v.tma_load(A, coords=(t, u + w), stage=0, barrier=full)\n"
      "            lm.wait(full, stage=0)\n";
  DiagnosticSink sink;
  auto m = compile(text, sink);
  ASSERT_TRUE(m) << describe(sink);
  const Schedule& s = m->schedules[0];
  const Stmt& loop = s.bodies[0].body[0];
  ASSERT_EQ(loop.kind, Stmt::Kind::For);
  const Op& load = loop.body[0].op;
  ASSERT_EQ(load.coords[0]->kind, ExprKind::LoopVar);
  EXPECT_EQ(load.coords[0]->index, loop.loop_var);
  EXPECT_NE(load.coords[1]->kind, ExprKind::LoopVar);
  for (int64_t b : {0, 2})
    for (int64_t g : {1, 3}) {
      EvalEnv env;
      env.params[1] = 40;
      env.block_idx[0] = b;
      env.grid_dim[0] = g;
      for (int64_t n = 0; n < 3; ++n) {
        env.loop_vars[loop.loop_var] = n;
        const int64_t tile = b + 1 + n * 2 * g;
        const int64_t u = (tile - b) / (2 * g), w = (tile - b - 1) / g;  // all non-negative here
        EXPECT_EQ(evaluate(*load.coords[0], env), n);
        EXPECT_EQ(evaluate(*load.coords[1], env), u + w);
      }
    }
}

}  // namespace conformance_test

namespace conformance_test {

TEST(Conformance, RingOpsSpelledByStageAndPhaseAreIterations) {
  // IR.md: iter=e is slot e % stages, phase e // stages, and a wait on a
  // negative iteration passes at once. So `stage=E % S, phase=E // S + c` on
  // a barrier of S slots is iter=E + c * S, and a guard that only skips the
  // negative iterations of a wait is no guard: one spelling reaches the checks.
  auto body = [](const std::string& producer, const std::string& consumer) {
    return "@cake.schedule(target=\"sm_90a\")\n"
           "def k(lm, A: LM.tma2d, K: LM.i32):\n"
           "    pool = lm.smem(65536)\n"
           "    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=4)\n"
           "    r = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
           "    load = lm.role(warps=[0])\n"
           "    use = lm.role(warps=[1])\n"
           "    full = lm.barrier(count=4, prod=[load], cons=[use])\n"
           "    empty = lm.barrier(count=4, prod=[use], cons=[load])\n"
           "    two = lm.barrier(count=2, prod=[use], cons=[load])\n"
           "    with load:\n"
           "        for k in lm.range(0, K):\n" +
           producer +
           "            v.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)\n"
           "    with use:\n"
           "        for k in lm.range(0, K):\n"
           "            lm.wait(full, iter=k)\n"
           "            lm.copy(r, v[k])\n" +
           consumer;
  };
  auto compiled = [&](const std::string& producer, const std::string& consumer) {
    DiagnosticSink sink;
    auto m = compile(body(producer, consumer), sink);
    EXPECT_TRUE(m) << describe(sink);
    return m ? std::optional<Schedule>(m->schedules[0]) : std::nullopt;
  };
  // the guarded first-lap wait and the release, by stage and phase
  for (const char* guard : {"if k >= 4:", "if not k < 4:", "if k > 3:", "if 4 <= k:", "if not (3 >= k):"}) {
    auto s = compiled(std::string("            ") + guard + "\n                lm.wait(empty, stage=k % 4, phase=k // 4 - 1)\n",
                      "            lm.arrive(empty, stage=k % 4, phase=k // 4)\n");
    ASSERT_TRUE(s);
    const Block& prod = s->bodies[0].body[0].body;
    ASSERT_EQ(prod[0].kind, Stmt::Kind::Op) << guard;  // the guard is gone
    EXPECT_EQ(prod[0].op.sel.mode, SlotSel::Mode::Iter);
    auto k = std::make_shared<Expr>();
    k->kind = ExprKind::LoopVar;
    k->index = s->bodies[0].body[0].loop_var;
    EXPECT_TRUE(equalForAllValues(*prod[0].op.sel.index, *makeExpr(ExprKind::Sub, {k, makeConst(4)}))) << guard;
    const Stmt& release = s->bodies[1].body[0].body[2];
    EXPECT_EQ(release.op.sel.mode, SlotSel::Mode::Iter);
    EXPECT_EQ(release.op.sel.phase, nullptr);
  }
  // what is no iteration stays as written: another modulus than the slots, a
  // phase that is not E's lap, a guard that also skips iteration 0 (k > 4)
  auto kept = [&](const std::string& producer, bool guard_kept) {
    auto s = compiled(producer, "");
    ASSERT_TRUE(s);
    const Stmt& first = s->bodies[0].body[0].body[0];
    EXPECT_EQ(first.kind == Stmt::Kind::If, guard_kept) << producer;
    const Stmt& wait = first.kind == Stmt::Kind::If ? first.body[0] : first;
    EXPECT_EQ(wait.op.sel.mode, SlotSel::Mode::Stage) << producer;
  };
  kept("            lm.wait(two, stage=k % 4 % 2, phase=k // 4)\n", false);
  kept("            if k >= 4:\n                lm.wait(empty, stage=k % 4, phase=k // 2)\n", true);
  kept("            if k >= 4:\n                lm.wait(empty, stage=k % 2, phase=k // 2 - 1)\n", true);
  auto s = compiled("            if k > 4:\n                lm.wait(empty, stage=k % 4, phase=k // 4 - 1)\n", "");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bodies[0].body[0].body[0].kind, Stmt::Kind::If);  // iteration k - 4 = 0 is skipped: kept
}

}  // namespace conformance_test

namespace conformance_test {

// A first-lap guard on the tile loop (helper gs45, session 45): `if t > 0
// or k >= 4:` around `lm.wait(empty, iter=it - 4)` with the flat ring
// iteration `it = (t + 1) * n - n + k` is false only at t = 0 (t counts from
// 0) and k < 4, where it - 4 = k - 4 < 0: the wait it skips passes at once
// (IR.md), so the guard changes nothing and is dropped. A guard false where
// the iteration may be >= 0 skips a real wait and is kept: `t > 1 or k >= 4`
// (false at t = 1, k = 0: n - 4), `t > 0 or k >= 5` (false at k = 4: 0),
// `k >= 4` alone (false at t = 1, k = 0), `t != 1 or k >= 4`, a conjunction
// (`t > 0 and k >= 4`: false at t = 1, k = 0); and so is one
// whose loop starts past the pinned value (`t > 1` over lm.range(2, ...)
// pins nothing: t is never 1 there, yet false at t = 2).
TEST(Conformance, AFirstLapGuardIsDroppedWhereItsFalsityMeansANegativeIteration) {
  auto schedule = [](const std::string& tiles, const std::string& it, const std::string& guard) {
    return "@cake.schedule(target=\"sm_90a\")\n"
           "def k(lm, A: LM.tma2d, K: LM.i32, T: LM.i32):\n"
           "    pool = lm.smem(65536)\n"
           "    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=4)\n"
           "    load = lm.role(warps=[0])\n"
           "    use = lm.role(warps=[1])\n"
           "    full = lm.barrier(count=4, prod=[load], cons=[use])\n"
           "    empty = lm.barrier(count=4, prod=[use], cons=[load])\n"
           "    n = lm.cdiv(K, 64)\n"
           "    with load:\n"
           "        for t in " + tiles + ":\n"
           "            for k in lm.range(0, n):\n"
           "                it = " + it + "\n"
           "                if " + guard + ":\n"
           "                    lm.wait(empty, iter=it - 4)\n"
           "                v.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)\n";
  };
  // whether the guard reached the checks (else the bare wait did)
  auto guardKept = [&](const std::string& tiles, const std::string& it, const std::string& guard) {
    DiagnosticSink sink;
    auto m = compile(schedule(tiles, it, guard), sink);
    EXPECT_TRUE(m) << describe(sink);
    if (!m) return true;
    const Stmt& first = m->schedules[0].bodies[0].body[0].body[0].body[0];
    const Stmt& wait = first.kind == Stmt::Kind::If ? first.body[0] : first;
    EXPECT_EQ(wait.op.kind, OpKind::Wait) << guard;
    return first.kind == Stmt::Kind::If;
  };
  const std::string flat = "(t + 1) * n - n + k", from0 = "lm.range(0, T)";
  const std::string strided = "lm.range(lm.block_idx(0), T, lm.grid_dim(0))";
  const std::string trip = "(t - lm.block_idx(0)) // lm.grid_dim(0)";
  for (const char* g : {"t > 0 or k >= 4", "t >= 1 or k >= 4", "not t < 1 or k >= 4", "k > 3 or 0 < t",
                        "t != 0 or k >= 4", "t > 0 or k >= 3", "not (t < 1 and k < 4)", "t > 0 or k >= 4 or k == 2",
                        "not (t == 0 and k < 4)"})
    EXPECT_FALSE(guardKept(from0, flat, g)) << g;
  for (const char* g : {"t > 1 or k >= 4", "t > 0 or k >= 5", "k >= 4", "t != 1 or k >= 4", "t > 0 and k >= 4",
                        "(t > 0 or k >= 4) and k != 2", "t * t > 0 or k >= 4"})
    EXPECT_TRUE(guardKept(from0, flat, g)) << g;
  // the grid-strided tile loop's trip number counts from 0 as well
  EXPECT_FALSE(guardKept(strided, "(" + trip + " + 1) * n - n + k", trip + " > 0 or k >= 4"));
  EXPECT_TRUE(guardKept(strided, "(" + trip + " + 1) * n - n + k", trip + " > 1 or k >= 4"));
  // a loop from 1 pins t > 1 at t = 1 (where the ring index (t - 1) * n + k
  // is k); one from 2 does not
  EXPECT_FALSE(guardKept("lm.range(1, T)", "(t - 1) * n + k", "t > 1 or k >= 4"));
  EXPECT_TRUE(guardKept("lm.range(2, T)", "(t - 2) * n + k", "t > 1 or k >= 4"));
}

}  // namespace conformance_test
