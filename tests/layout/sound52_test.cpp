// Session 52 (helper sound52, docs/z3.md "Session 52 (helper sound52)"):
// the layout and structural gates took an op's enclosing guards as premises
// read "defined and true", so a guard that overflows 64 bits exactly where
// the op breaks its rule removed those values from the proof, and the gate
// said *proved*. A fact (guard, loop range, lm.assume) that the width
// argument of encoder/defined_premise.h does not show defined now reads
// "undefined or true": it narrows nothing where it is undefined, and a
// gate that fails only there is unknown. An lm.assume fact that may
// overflow gets a located warning.
#include <gtest/gtest.h>

#include <string>

#include "checks/structural.h"
#include "encoder/bv_prover.h"
#include "encoder/defined_premise.h"
#include "ir/expr_build.h"
#include "layout_test_util.h"

namespace cake {
namespace sound52_test {  // named: the unity build shares one unit with gates_test.cpp

using layout_test::GateRun;
using layout_test::lineOf;
using layout_test::runGates;

// 2^55: `X * kBig > 0` is defined in 64 bits only for X < 256, and true in
// Python's integers for every X > 0.
const std::string kBig = "36028797018963968";

checks::VerdictKind verdictOf(const GateRun& r, const std::string& rule) {
  const auto* v = r.verdict(rule);
  EXPECT_NE(v, nullptr) << rule << "\n" << r.describe();
  return v ? v->kind : checks::VerdictKind::Error;
}

// A TMA ring of rows x cols bf16 slots (BM in 64..512, a multiple of 64;
// BK 64 or 128); `guard` heads the load (indented 12 spaces), `bytes` is
// what its expect_tx announces.
std::string tmaRing(const std::string& guard, const std::string& assumes = "", const std::string& swizzle = "None",
                    const std::string& bytes = "BM * 128", const std::string& shape = "BM, 64") {
  return R"(@cake.schedule(target="sm_90a")
def ring(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32, BK: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 64 and BM <= 512 and BM % 64 == 0)
    lm.assume(BK == 64 or BK == 128)
)" + assumes + R"(    pool   = lm.smem(131072)
    smem_x = pool.view(offset=0, shape=()" + shape + R"(), dtype=lm.bf16, stages=2, swizzle=)" +
         (swizzle == "None" ? swizzle : "\"" + swizzle + "\"") + R"()
    x      = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)
    with load:
        for j in lm.range(0, lm.cdiv(D, 64)):
            lm.wait(empty, iter=j - 2)
)" + guard + R"(
                lm.expect_tx(full, )" + bytes + R"(, iter=j)
                smem_x.tma_load(X, coords=(0, j * 64), iter=j, barrier=full)
    with red:
        for j in lm.range(0, lm.cdiv(D, 64)):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j][0:64, 0:64])
            lm.fence_proxy()
            lm.arrive(empty, iter=j)
)";
}

std::string overflowing(const std::string& x) { return "            if " + x + " * " + kBig + " > 0:"; }

TEST(Sound52, GatesUnderAGuardUndefinedWhereTheRuleBreaksAreNotProved) {
  // The box's BM rows exceed 256 exactly where the guard leaves 64 bits
  // (BM >= 256): on main tma.box-extent was proved.
  auto box = runGates(tmaRing(overflowing("BM")));
  EXPECT_EQ(verdictOf(*box, "tma.box-extent"), checks::VerdictKind::Unknown) << box->describe();
  EXPECT_NE(box->verdict("tma.box-extent")->detail.find("overflows 64 bits or divides by zero"), std::string::npos)
      << box->describe();
  // A 128-byte swizzle spans 64 bf16 columns: BK = 128 breaks it, and
  // BK * 2^56 > 0 is defined only for BK < 128.
  auto span = runGates(tmaRing("            if BK * 72057594037927936 > 0:", "", "128B", "BK * 128", "64, BK"));
  EXPECT_NE(verdictOf(*span, "tma.swizzle-span"), checks::VerdictKind::Proved) << span->describe();
  // The expect_tx announces the slot's BM * 128 bytes but for BM >= 256 a
  // quarter less.
  auto tx = runGates(tmaRing(overflowing("BM"), "", "None", "(BM - BM // 256 * 64) * 128"));
  EXPECT_NE(verdictOf(*tx, "sync.tx-imbalance"), checks::VerdictKind::Proved) << tx->describe();
}

TEST(Sound52, GatesUnderADefinedGuardAreStillDecided) {
  // The same guard by a width the facts bound (BM * 2^40 < 2^50): proved.
  auto ok = runGates(tmaRing("            if BM * 1099511627776 > 0:", "    lm.assume(BM <= 256)\n"));
  EXPECT_EQ(verdictOf(*ok, "tma.box-extent"), checks::VerdictKind::Proved) << ok->describe();
  EXPECT_EQ(verdictOf(*ok, "sync.tx-imbalance"), checks::VerdictKind::Proved) << ok->describe();
  // A defined guard around a box of 512 rows: the counterexample as before.
  auto bad = runGates(tmaRing("            if BM > 0:"));
  EXPECT_EQ(verdictOf(*bad, "tma.box-extent"), checks::VerdictKind::Counterexample) << bad->describe();
}

// ------------------------------------------------------------ structural

std::vector<checks::PropertyVerdict> structural(const std::string& text, ir::DiagnosticSink& sink) {
  ir::DiagnosticSink fe;
  auto mod = ir::compileModule(ir::makeSourceFile("test.cake", text), {}, fe);
  std::vector<checks::PropertyVerdict> out;
  if (!mod || mod->schedules.empty()) {
    ADD_FAILURE() << "front end rejected the schedule:\n" << text;
    return out;
  }
  checks::runStructuralChecks(mod->schedules.front(), sink, {}, &out);
  return out;
}

std::string slotRing(const std::string& guard, const std::string& stage) {
  return R"(@cake.schedule(target="sm_90a")
def ring(lm, K: LM.i32):
    lm.assume(K > 0)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    with producer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            lm.arrive(full, stage=k % 3)
    with consumer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            if )" + guard + R"(:
                lm.wait(full, stage=)" + stage + ")\n";
}

const checks::PropertyVerdict* slotVerdict(const std::vector<checks::PropertyVerdict>& vs) {
  for (const auto& v : vs)
    if (v.property == "struct.slot-out-of-range") return &v;
  return nullptr;
}

TEST(Sound52, SlotUnderAGuardUndefinedWhereItIsOutOfRangeIsNotProved) {
  // stage K // 2^23 is 0 wherever K * 2^40 fits 64 bits (K < 2^23) and 3
  // from K = 3 * 2^23 on, where Python's K * 2^40 > 0 is true: on main
  // the gate was proved.
  ir::DiagnosticSink sink;
  const auto vs = structural(slotRing("K * 1099511627776 > 0", "K // 8388608"), sink);
  const auto* v = slotVerdict(vs);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->kind, checks::VerdictKind::Unknown) << v->detail;
  EXPECT_NE(v->detail.find("K * 1099511627776 > 0"), std::string::npos) << v->detail;
  // Without the guard's overflow the out-of-range slot is found.
  ir::DiagnosticSink found;
  const auto* w = slotVerdict(structural(slotRing("K > 0", "K // 8388608"), found));
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, checks::VerdictKind::Counterexample) << w->detail;
}

TEST(Sound52, SlotUnderAGuardDefinedByWidthIsProved) {
  ir::DiagnosticSink sink;
  const auto* v = slotVerdict(structural(slotRing("K * 1024 > 0 and k * 3 < K", "k % 3"), sink));
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->kind, checks::VerdictKind::Proved) << v->detail;
}

// ------------------------------------------------------------ lm.assume

TEST(Sound52, AnAssumeThatMayOverflowNarrowsNothing) {
  // lm.assume(BM * 2^55 > 0): defined only for BM < 256, so read as
  // "defined and true" it kept BM at 64..192 and the 512-row box was
  // proved (main). Read "undefined or true", BM 256..512 stay in.
  const std::string text = tmaRing("            if BM > 0:", "    lm.assume(BM * " + kBig + " > 0)\n");
  auto r = runGates(text);
  EXPECT_NE(verdictOf(*r, "tma.box-extent"), checks::VerdictKind::Proved) << r->describe();
  auto warn = r->rule("layout.assume-overflow");
  ASSERT_EQ(warn.size(), 1u) << r->describe();
  EXPECT_EQ(warn[0]->severity, ir::Severity::Warning);
  EXPECT_EQ(warn[0]->range.line, lineOf(text, "lm.assume(BM * " + kBig));
  EXPECT_NE(warn[0]->message.find("narrows nothing"), std::string::npos) << warn[0]->message;
}

TEST(Sound52, AnAssumeThatMayOverflowStillProvesWhatHoldsEverywhere) {
  // The same fact with BM <= 256 in another: it overflows at BM = 256,
  // where the box (256 rows) is within the limit: proved, with the warning.
  auto r = runGates(tmaRing("            if BM > 0:", "    lm.assume(BM <= 256)\n    lm.assume(BM * " + kBig + " > 0)\n"));
  EXPECT_EQ(verdictOf(*r, "tma.box-extent"), checks::VerdictKind::Proved) << r->describe();
  EXPECT_EQ(r->rule("layout.assume-overflow").size(), 1u) << r->describe();
  EXPECT_FALSE(r->has("tma.box-extent")) << r->describe();
  // A fact the width argument bounds: no warning.
  auto quiet = runGates(tmaRing("            if BM > 0:", "    lm.assume(BM <= 256)\n    lm.assume(BM * 1024 > 0)\n"));
  EXPECT_TRUE(quiet->rule("layout.assume-overflow").empty()) << quiet->describe();
}

TEST(Sound52, TheProverReadsAnAssumeThatMayOverflowAsUndefinedOrTrue) {
  ir::DiagnosticSink fe;
  auto mod = ir::compileModule(ir::makeSourceFile("t.cake", R"(@cake.schedule(target="sm_90a")
def f(lm, M: LM.i32):
    lm.assume(M * 1099511627776 > 0)
    w = lm.role(warps=[0])
    with w:
        lm.fence_proxy()
)"),
                               {}, fe);
  ASSERT_TRUE(mod && !mod->schedules.empty());
  const ir::Schedule& s = mod->schedules.front();
  encoder::BvProver prover(s);
  auto M = std::make_shared<ir::Expr>();
  M->kind = ir::ExprKind::Param;
  M->index = 0;
  // Python's M * 2^40 > 0 allows M = 2^23; read "defined and true" (main)
  // the fact kept M below 2^23 and this held.
  EXPECT_NE(prover.prove(ir::build::lt(M, ir::build::lit(8388608))).kind, encoder::BvVerdict::Holds);
  // A witness is a value every fact allows: M = 5 is one.
  EXPECT_EQ(prover.witness(ir::build::eq(M, ir::build::lit(5))).kind, encoder::BvVerdict::Fails);
  EXPECT_EQ(prover.assumptionsConsistent(), encoder::BvVerdict::Holds);
}

TEST(Sound52, TheWidthArgumentBoundsSmallArithmetic) {
  ir::DiagnosticSink fe;
  auto mod = ir::compileModule(ir::makeSourceFile("t.cake", R"(@cake.schedule(target="sm_90a")
def f(lm, M: LM.i32, N: LM.i32):
    lm.assume(M >= 1 and M <= 4096)
    w = lm.role(warps=[0])
    with w:
        for t in lm.range(0, lm.cdiv(M, 64) * N):
            if (t * lm.cdiv(M, 64) + lm.block_idx(0)) % 4 == 0:
                lm.fence_proxy()
            if t * N * M > 0:
                lm.fence_proxy()
            if t % N == 0:
                lm.fence_proxy()
)"),
                               {}, fe);
  ASSERT_TRUE(mod && !mod->schedules.empty());
  const ir::Schedule& s = mod->schedules.front();
  const ir::Block& body = s.bodies.front().body.front().body;
  ASSERT_EQ(body.size(), 3u);
  // a 32-bit t times M's cdiv (at most 64), plus a block index: fits
  EXPECT_TRUE(encoder::definedByWidth(s, *body[0].cond));
  // t * N * M: 2^31 * 2^31 * 4096 leaves 64 bits
  EXPECT_FALSE(encoder::definedByWidth(s, *body[1].cond));
  // N may be 0
  EXPECT_FALSE(encoder::definedByWidth(s, *body[2].cond));
  auto r = encoder::widthRange(s, *ir::build::cdiv(s.assumes.front().cond->args[0]->args[0], ir::build::lit(64)));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->lo, 1);  // M in [1, 4096] by the facts
  EXPECT_EQ(r->hi, 64);
}

TEST(Sound52, TheWidthArgumentTakesBoundsOnlyFromDefinedFacts) {
  ir::DiagnosticSink fe;
  auto mod = ir::compileModule(ir::makeSourceFile("t.cake", R"(@cake.schedule(target="sm_90a")
def f(lm, M: LM.i32, BK: LM.i32):
    lm.assume(M * 36028797018963968 > 0 and M <= 64)
    lm.assume(BK == 64 or BK == 128)
    w = lm.role(warps=[0])
    with w:
        if M * 36028797018963968 > 1:
            lm.fence_proxy()
        if BK * 36028797018963968 > 1:
            lm.fence_proxy()
)"),
                               {}, fe);
  ASSERT_TRUE(mod && !mod->schedules.empty());
  const ir::Schedule& s = mod->schedules.front();
  const ir::Block& body = s.bodies.front().body;
  ASSERT_EQ(body.size(), 2u);
  // The first fact may be undefined (M from 256 on), and where it is, its
  // `M <= 64` need not hold: it bounds nothing.
  EXPECT_FALSE(encoder::definedByWidth(s, *body[0].cond));
  // BK in [64, 128] by the second: BK * 2^55 <= 2^62.
  EXPECT_TRUE(encoder::definedByWidth(s, *body[1].cond));
}

}  // namespace sound52_test
}  // namespace cake
