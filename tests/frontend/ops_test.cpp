// The op table (ir/ops.def) and the integer evaluator (ir/int_eval.h).
#include <climits>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "ir/int_eval.h"
#include "ir/ops.h"
#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;

namespace {

const Finding* findingOf(const DiagnosticSink& sink, std::string_view rule) {
  for (const Finding& f : sink.findings())
    if (f.rule == rule) return &f;
  return nullptr;
}

// ------------------------------------------------------------- op table

// IR.md's core `lm.copy(dst, src)` has no coords=: a register fragment copied
// to a global tensor (st.global) is a valid core file.  The front end used to
// reject it (type.missing-argument); the checks do not depend on where the
// tile lands, and lowering refuses to place it (lowering/validate.cpp).
TEST(OpTable, CoreCopyToGlobalWithoutCoordsIsAccepted) {
  DiagnosticSink sink;
  auto m = compile(
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm, O: LM.gmem):\n"
      "    acc = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
      "    w = lm.role(warps=[0, 1, 2, 3])\n"
      "    with w:\n"
      "        lm.fill(acc, 0.0)\n"
      "        lm.copy(O, acc)\n",
      sink);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_FALSE(sink.hasErrors()) << describe(sink);
  int copies = 0;
  forEachOp(m->schedules[0].bodies[0].body, [&](const Stmt& st) {
    if (st.op.kind != OpKind::Copy) return;
    ++copies;
    EXPECT_EQ(st.op.dst.kind, BufferRef::Kind::Param);
    EXPECT_TRUE(st.op.coords.empty());
  });
  EXPECT_EQ(copies, 1);
}

// IR.md "Slots and phases": every op on a barrier names its slot with
// iter= or stage=, and with stage= "the phase is phase=n if given".  The
// front end used to take phase= on lm.wait only, rejecting a core file
// that gives the phase of an arrival (type.unknown-argument); the model
// already reads an explicit phase for every arriving op (docs/corpus.md,
// helper realbugs3).
TEST(OpTable, CorePhaseOnArrivingOpsIsAccepted) {
  DiagnosticSink sink;
  auto m = compile(
      "@cake.schedule(target=\"sm_100a\")\n"
      "def k(lm, A: LM.tma2d, n: LM.i32):\n"
      "    pool = lm.smem(16384)\n"
      "    sa = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16)\n"
      "    acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)\n"
      "    w = lm.role(warps=[0])\n"
      "    e = lm.role(warps=[4, 5, 6, 7])\n"
      "    b = lm.barrier(count=2, prod=[w], cons=[e], init_count=1)\n"
      "    with w:\n"
      "        for t in lm.range(0, n):\n"
      "            lm.arrive(b, stage=0, phase=t)\n"
      "            lm.expect_tx(b, 16384, stage=1, phase=2 * t)\n"
      "            sa.tma_load(A, coords=(0, 0), stage=1, barrier=b, phase=2 * t + 1)\n"
      "            lm.mma(acc, sa[0], sa[0], init=True)\n"
      "            lm.mma_commit(barrier=b, stage=1, phase=t + 7)\n"
      "    with e:\n"
      "        lm.wait(b, stage=0)\n",
      sink);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_FALSE(sink.hasErrors()) << describe(sink);
  int withPhase = 0;
  forEachOp(m->schedules[0].bodies[0].body, [&](const Stmt& st) {
    if (st.op.kind == OpKind::Mma) return;
    EXPECT_EQ(st.op.sel.mode, SlotSel::Mode::Stage) << opName(st.op.kind);
    if (st.op.sel.phase) ++withPhase;
  });
  EXPECT_EQ(withPhase, 4);
  // phase= still goes with stage= only, and mma_commit without a barrier has none
  DiagnosticSink bad;
  compile(
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm):\n"
      "    w = lm.role(warps=[0])\n"
      "    b = lm.barrier(count=2, prod=[w], cons=[w], init_count=1)\n"
      "    with w:\n"
      "        lm.arrive(b, iter=3, phase=1)\n"
      "        lm.mma_commit(phase=1)\n",
      bad);
  EXPECT_TRUE(findingOf(bad, "type.mismatch")) << describe(bad);
  int mismatches = 0;
  for (const Finding& f : bad.findings()) mismatches += f.rule == "type.mismatch";
  EXPECT_EQ(mismatches, 2) << describe(bad);
}

TEST(OpTable, EveryOpNameRoundTrips) {
  std::set<std::string> names;
  int index = 0;
  for (const OpInfo& o : allOps()) {
    EXPECT_EQ(static_cast<int>(o.kind), index++) << o.name;
    EXPECT_TRUE(names.insert(std::string(o.name)).second) << "duplicate op name " << o.name;
    EXPECT_EQ(opName(o.kind), o.name);
    EXPECT_EQ(&opInfo(o.kind), &o);
    ASSERT_TRUE(findOp(o.name, o.receiver).has_value()) << o.name;
    EXPECT_EQ(*findOp(o.name, o.receiver), o.kind);
  }
  // Every enumerator has its row: the table ends at the enum's last kind.
  EXPECT_EQ(index, static_cast<int>(OpKind::LaunchDependents) + 1);
}

TEST(OpTable, UnknownNamesAndWrongReceiversAreRejected) {
  EXPECT_FALSE(findOp("tma_lod", OpReceiver::View));
  EXPECT_FALSE(findOp("", OpReceiver::Builder));
  EXPECT_FALSE(findOp("Wait", OpReceiver::Builder));
  EXPECT_FALSE(findOp("barrier", OpReceiver::Builder));   // a declaration, not an op
  EXPECT_FALSE(findOp("tma_load", OpReceiver::Builder));  // called on a view
  EXPECT_FALSE(findOp("wait", OpReceiver::View));
}

TEST(OpTable, SignaturesMatchTheIrReference) {
  const OpInfo& load = opInfo(OpKind::TmaLoad);
  ASSERT_EQ(load.args.size(), 7u);
  EXPECT_EQ(load.args[0].name, "tensor");
  EXPECT_EQ(load.args[5].name, "multicast");
  EXPECT_FALSE(load.args[5].required);
  EXPECT_TRUE(load.args[0].required);
  EXPECT_EQ(load.args[2].name, "stage");
  EXPECT_FALSE(load.args[2].required);
  EXPECT_EQ(load.positional, 2);  // the tensor and coords=, in IR.md's order
  EXPECT_EQ(load.positionOf("tensor"), 0);
  EXPECT_EQ(load.positionOf("coords"), 1);
  EXPECT_EQ(load.positionOf("stage"), -1);  // keyword only
  EXPECT_EQ(opInfo(OpKind::ExpectTx).positionOf("bytes"), 1);
  EXPECT_TRUE(opInfo(OpKind::FenceProxy).args.empty());
  for (const OpInfo& o : allOps()) EXPECT_LE(o.positional, static_cast<int>(o.args.size())) << o.name;
}

TEST(OpTable, FlagsAndGroupWaits) {
  for (OpKind k : {OpKind::Arrive, OpKind::ExpectTx, OpKind::TmaLoad, OpKind::MmaCommit})
    EXPECT_TRUE(opInfo(k).has(OpFlag::Arrives)) << opName(k);
  EXPECT_FALSE(opInfo(OpKind::Wait).has(OpFlag::Arrives));
  EXPECT_EQ(groupWaitOf(OpKind::TmaStoreCommit), OpKind::TmaStoreWait);
  EXPECT_EQ(groupWaitOf(OpKind::CpAsyncCommit), OpKind::CpAsyncWait);
  EXPECT_EQ(groupWaitOf(OpKind::MmaCommit), OpKind::MmaWait);
  EXPECT_FALSE(groupWaitOf(OpKind::Arrive));
  // every committing op has a wait, every group wait a commit
  for (const OpInfo& o : allOps()) {
    if (o.has(OpFlag::Commits)) EXPECT_TRUE(groupWaitOf(o.kind)) << o.name;
    if (o.has(OpFlag::AwaitsGroup)) {
      bool committed = false;
      for (const OpInfo& c : allOps()) committed |= groupWaitOf(c.kind) == o.kind;
      EXPECT_TRUE(committed) << o.name;
    }
  }
}

TEST(OpTable, ElementFunctionsRoundTripPerOp) {
  int index = 1;
  for (const ElemFnInfo& f : allElemFns()) {
    EXPECT_EQ(static_cast<int>(f.fn), index++) << f.name;
    EXPECT_EQ(elemFnName(f.fn), f.name);
    bool some = false;
    for (OpKind op : {OpKind::Unary, OpKind::Binary, OpKind::Reduce}) {
      if (!(f.ops & elemFnOpsOf(op))) continue;
      some = true;
      EXPECT_EQ(findElemFn(f.name, op), f.fn) << f.name;
    }
    EXPECT_TRUE(some) << f.name << " belongs to no op";
  }
  EXPECT_EQ(findElemFn("max", OpKind::Binary), ElemFn::Max);
  EXPECT_EQ(findElemFn("max", OpKind::Reduce), ElemFn::Max);
  EXPECT_FALSE(findElemFn("sum", OpKind::Binary));
  EXPECT_FALSE(findElemFn("exp2", OpKind::Reduce));
  EXPECT_FALSE(findElemFn("exp2", OpKind::Copy));
  EXPECT_FALSE(findElemFn("tanh", OpKind::Unary));
  EXPECT_EQ(elemFnName(ElemFn::None), "");
  EXPECT_TRUE(elemFnInfo(ElemFn::Div).has(ElemFnFlag::FloatOnly));
  EXPECT_FALSE(elemFnInfo(ElemFn::Div).has(ElemFnFlag::Sfu));
}

// The front end resolves names through the table: an op it does not hold is
// a located type.unknown-op, a function an op does not take too.
// `body` is the role's body; the finding must be at `line` and name `fragment`.
static void expectUnknownOpAt(const std::string& decls, const std::string& body, int line,
                              const std::string& fragment) {
  DiagnosticSink sink;
  auto m = compile("import cake\n"
                   "@cake.schedule(target=\"sm_90a\")\n"
                   "def k(lm):\n" +
                       decls +
                       "    p = lm.role(warps=[0])\n"
                       "    with p:\n"
                       "        " +
                       body + "\n",
                   sink);
  EXPECT_FALSE(m);
  const Finding* f = findingOf(sink, "type.unknown-op");
  ASSERT_TRUE(f) << describe(sink);
  EXPECT_EQ(f->range.line, line);
  EXPECT_NE(f->message.find(fragment), std::string::npos) << f->message;
}

TEST(OpTable, UnknownOpIsALocatedError) {
  expectUnknownOpAt("", "lm.fence_proxyy()", 6, "lm.fence_proxyy");
}

TEST(OpTable, UnknownElementFunctionListsTheOpsFunctions) {
  expectUnknownOpAt("    x = lm.regs(shape=(16,), dtype=lm.f32)\n"
                    "    y = lm.regs(shape=(1,), dtype=lm.f32)\n",
                    "lm.reduce(y, x, op=\"add\", axis=0)", 8,
                    "\"sum\", \"max\", \"min\", \"argmin\", \"argmax\"");
}

// A running argmin/argmax: value= names the running values (read and
// written, in src2), base= where the source's indices start.
static DiagnosticSink runningReduce(const std::string& call) {
  DiagnosticSink sink;
  compile("import cake\n"
          "@cake.schedule(target=\"sm_90a\")\n"
          "def k(lm, J: LM.i32):\n"
          "    x = lm.regs(shape=(64, 128), dtype=lm.f32)\n"
          "    v = lm.regs(shape=(64, 1), dtype=lm.f32)\n"
          "    i = lm.regs(shape=(64, 1), dtype=lm.i32)\n"
          "    pool = lm.smem(1024)\n"
          "    s = pool.view(offset=0, shape=(64, 1), dtype=lm.i32)\n"
          "    p = lm.role(warps=[0, 1, 2, 3])\n"
          "    with p:\n"
          "        " + call + "\n",
          sink);
  return sink;
}

TEST(OpTable, RunningArgminTakesValueAndBase) {
  DiagnosticSink ok;
  auto m = compile("import cake\n"
                   "@cake.schedule(target=\"sm_90a\")\n"
                   "def k(lm, J: LM.i32):\n"
                   "    x = lm.regs(shape=(64, 128), dtype=lm.f32)\n"
                   "    v = lm.regs(shape=(64, 1), dtype=lm.f32)\n"
                   "    i = lm.regs(shape=(64, 1), dtype=lm.i32)\n"
                   "    p = lm.role(warps=[0, 1, 2, 3])\n"
                   "    with p:\n"
                   "        lm.reduce(i, x, op=\"argmin\", axis=1, value=v, base=J * 128)\n",
                   ok);
  ASSERT_TRUE(m) << describe(ok);
  const Op& op = m->schedules[0].bodies[0].body[0].op;
  EXPECT_EQ(op.src2.kind, BufferRef::Kind::Regs);
  EXPECT_EQ(op.src2.index, 1);
  ASSERT_TRUE(op.base);
  EXPECT_EQ(exprToString(*op.base, m->schedules[0]), "J * 128");
  // value= and base= belong to argmin / argmax; value= needs a register destination
  for (const char* bad : {"lm.reduce(v, x, op=\"min\", axis=1, value=v)", "lm.reduce(v, x, op=\"sum\", axis=1, base=4)",
                          "lm.reduce(s, x, op=\"argmax\", axis=1, value=v)"}) {
    DiagnosticSink sink = runningReduce(bad);
    EXPECT_TRUE(findingOf(sink, "type.mismatch")) << bad << "\n" << describe(sink);
  }
  DiagnosticSink smem = runningReduce("lm.reduce(i, x, op=\"argmin\", axis=1, value=s)");
  EXPECT_TRUE(findingOf(smem, "type.mismatch")) << describe(smem);
}

// ------------------------------------------------------ integer evaluator

TEST(IntEval, FloorDivisionAndModuloArePythons) {
  EXPECT_EQ(floorDiv(7, 2), 3);
  EXPECT_EQ(floorDiv(-7, 2), -4);
  EXPECT_EQ(floorDiv(7, -2), -4);
  EXPECT_EQ(floorDiv(-7, -2), 3);
  EXPECT_EQ(floorDiv(-8, 2), -4);
  EXPECT_EQ(floorMod(-7, 2), 1);
  EXPECT_EQ(floorMod(7, -2), -1);
  EXPECT_EQ(floorMod(-7, -2), -1);
  EXPECT_EQ(floorMod(6, 3), 0);
  EXPECT_EQ(floorMod(INT64_MIN, -1), 0);
  EXPECT_FALSE(floorDiv(1, 0));
  EXPECT_FALSE(floorMod(1, 0));
}

TEST(IntEval, CeilDivision) {
  EXPECT_EQ(ceilDiv(7, 2), 4);
  EXPECT_EQ(ceilDiv(8, 2), 4);
  EXPECT_EQ(ceilDiv(-7, 2), -3);
  EXPECT_EQ(ceilDiv(7, -2), -3);
  EXPECT_EQ(ceilDiv(0, 64), 0);
  EXPECT_FALSE(ceilDiv(1, 0));
}

TEST(IntEval, OverflowGivesNoValue) {
  EXPECT_FALSE(floorDiv(INT64_MIN, -1));
  EXPECT_FALSE(ceilDiv(INT64_MIN, 1));   // -INT64_MIN does not fit
  EXPECT_FALSE(ceilDiv(INT64_MIN, 2));     // negating the dividend overflows (as in the front end)
  EXPECT_EQ(ceilDiv(INT64_MIN + 1, -1), INT64_MAX);
  EXPECT_FALSE(applyIntOp(ExprKind::Neg, INT64_MIN));
  EXPECT_FALSE(applyIntOp(ExprKind::Add, INT64_MAX, 1));
  EXPECT_FALSE(applyIntOp(ExprKind::Sub, INT64_MIN, 1));
  EXPECT_FALSE(applyIntOp(ExprKind::Mul, INT64_MAX / 2 + 1, 2));
  EXPECT_EQ(applyIntOp(ExprKind::Mul, -(INT64_MAX / 2) - 1, 2), INT64_MIN);
}

TEST(IntEval, OperatorsAndLeaves) {
  EXPECT_EQ(applyIntOp(ExprKind::Min, 3, -4), -4);
  EXPECT_EQ(applyIntOp(ExprKind::Max, 3, -4), 3);
  EXPECT_EQ(applyIntOp(ExprKind::Lt, 3, 4), 1);
  EXPECT_EQ(applyIntOp(ExprKind::Ne, 3, 3), 0);
  EXPECT_EQ(applyIntOp(ExprKind::And, 2, 5), 1);
  EXPECT_EQ(applyIntOp(ExprKind::Or, 0, 0), 0);
  EXPECT_EQ(applyIntOp(ExprKind::Not, 7), 0);
  EXPECT_EQ(applyIntOp(ExprKind::Mod, -1, 64), 63);
  EXPECT_FALSE(isIntOperator(ExprKind::Param));
  EXPECT_TRUE(isIntOperator(ExprKind::CDiv));
  EXPECT_THROW(applyIntOp(ExprKind::Const, 1), std::logic_error);
}

// The front end folds constants with the same evaluator: Python's answers,
// and a located type.int-overflow where a value does not fit.
TEST(IntEval, FrontEndFoldsWithPythonSemantics) {
  DiagnosticSink sink;
  auto m = compile(
      "import cake\n"
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm):\n"
      "    p = lm.role(warps=[0])\n"
      "    b = lm.barrier(count=-7 // 2 + 6, prod=[p], cons=[p])\n"
      "    c = lm.barrier(count=-7 % 3 + lm.cdiv(-7, 2) + 3, prod=[p], cons=[p])\n"
      "    with p:\n"
      "        lm.fence_proxy()\n",
      sink);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_EQ(m->schedules[0].barriers[0].count, 2);   // -4 + 6
  EXPECT_EQ(m->schedules[0].barriers[1].count, 2);   // 2 - 3 + 3
  DiagnosticSink over;
  auto o = compile(
      "import cake\n"
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm):\n"
      "    p = lm.role(warps=[0])\n"
      "    n = 9223372036854775807\n"
      "    b = lm.barrier(count=n + 1, prod=[p], cons=[p])\n",
      over);
  EXPECT_FALSE(o);
  const Finding* f = findingOf(over, "type.int-overflow");
  ASSERT_TRUE(f) << describe(over);
  EXPECT_EQ(f->range.line, 6);
}

}  // namespace
