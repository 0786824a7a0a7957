// Loop bounds compared by value (encoder/value_equality.h): the builder's
// cross-role pairing and the trip proof's respelled bounds share one
// comparison (docs/z3.md "Loop bounds respelled by value", helper bounds38,
// session 38). Its cheap steps answer exactly (a canonical form equal, a
// sample assignment the facts allow where the values differ); the rest is
// Z3's under the facts. The proof reads bounds of one value in one
// spelling; bounds that differ for some allowed value are never equated.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/value_equality.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace value_equality_test {

// Compares two integer expressions of the schedule's parameters, written in
// the DSL as the bounds of two loops (`lm.range(0, A)` and `lm.range(0, B)`)
// under `facts` (lines of lm.assume); `queries`: the prover's questions.
encoder::ValueEquality compareBounds(const std::string& a, const std::string& b, const std::string& facts,
                                     int* queries = nullptr) {
  const std::string text =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def bounds(lm, K: LM.i32, M: LM.i32):\n" +
      facts +
      "    v = lm.regs(shape=(1, 32), dtype=lm.f32)\n"
      "    w = lm.role(warps=[0])\n"
      "    with w:\n"
      "        for i in lm.range(0, " + a + "):\n"
      "            lm.fill(v, 0.0)\n"
      "        for j in lm.range(0, " + b + "):\n"
      "            lm.fill(v, 0.0)\n";
  auto mod = compile(text);
  EXPECT_FALSE(mod.schedules.empty()) << text;
  if (mod.schedules.empty()) return encoder::ValueEquality::Unknown;
  const ir::Schedule& s = mod.schedules.at(0);
  const ir::Block& body = s.bodies.at(0).body;
  encoder::ValueComparer cmp(s, encoder::kBoundQueryLimits);
  const encoder::ValueEquality eq = cmp.compareLoops(body.at(0), body.at(1));
  if (queries) *queries = cmp.proverQueries();
  return eq;
}

const std::string kPositive = "    lm.assume(K > 0)\n    lm.assume(M > 0)\n";
const std::string kDir = "corpus/bugs/data.stale-read/";
const std::string kFixed = kDir + "sm90_table_row_tile_count_spelled_apart_first_tile_only_fixed.cake";
const std::string kBroken = kDir + "sm90_table_row_tile_count_spelled_apart_first_tile_only.cake";

}  // namespace value_equality_test

namespace veq = value_equality_test;
using encoder::ValueEquality;

// Equal where the canonical form shows it (no query): lm.cdiv(K, 64) is
// (K + 63) // 64 for every integer K. Different where a sample the facts
// allow tells them apart (no query): the off-by-one spellings differ at
// K = 1 or K = 64, a constant tile count against a symbolic one at M = 1.
TEST(ValueEquality, CheapStepsAnswerWithoutTheProver) {
  int q = -1;
  EXPECT_EQ(veq::compareBounds("lm.cdiv(K, 64)", "(K + 63) // 64", veq::kPositive, &q), ValueEquality::Equal);
  EXPECT_EQ(q, 0);
  for (const char* twin : {"(K + 62) // 64", "K // 64", "(K + 64) // 64", "lm.cdiv(K, 32)", "lm.cdiv(K + 1, 64)"}) {
    EXPECT_EQ(veq::compareBounds("lm.cdiv(K, 64)", twin, veq::kPositive, &q), ValueEquality::Different) << twin;
    EXPECT_EQ(q, 0) << twin;
  }
  EXPECT_EQ(veq::compareBounds("2", "lm.cdiv(max(lm.cdiv(M, 128) - lm.block_idx(0), 0), lm.grid_dim(0))",
                               veq::kPositive, &q),
            ValueEquality::Different);
  EXPECT_EQ(q, 0);
}

// What only the facts decide goes to Z3: equal under lm.assume(K == M) or
// K % 64 == 0, different where the facts allow a counterexample that no
// sample meets (K <= M, every sample has K == M).
TEST(ValueEquality, FactsDecideThroughTheProver) {
  int q = -1;
  EXPECT_EQ(veq::compareBounds("K", "M", veq::kPositive + "    lm.assume(K == M)\n", &q), ValueEquality::Equal);
  EXPECT_EQ(q, 1);
  EXPECT_EQ(veq::compareBounds("K // 64", "lm.cdiv(K, 64)", veq::kPositive + "    lm.assume(K % 64 == 0)\n", &q),
            ValueEquality::Equal);
  EXPECT_EQ(q, 1);
  EXPECT_EQ(veq::compareBounds("K", "M", veq::kPositive + "    lm.assume(K <= M)\n", &q), ValueEquality::Different);
  EXPECT_EQ(q, 1);
}

// The corpus pair's fixed form is proved with its bounds read in one
// spelling; its broken form (the row written on the first tile only) is
// found and not proved. Twins whose consumer bound differs from the
// producer's for some allowed K are not respelled: found and not proved
// (the fixed form's: the barrier's counts part at K = 1; the broken
// form's: its stale row first).
TEST(RespelledBounds, BoundsOfOneValueAreProvedAsOneTripExpression) {
  const std::string fixed = corpusText(veq::kFixed);
  auto mod = compile(fixed);
  ASSERT_FALSE(mod.schedules.empty());
  const encoder::ModelCheckResult r = proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("(K + 63) // 64 as lm.cdiv(K, 64)"), std::string::npos) << r.engine;
  const std::string broken = corpusText(veq::kBroken);
  expectFoundNotProved(broken, "data.stale-read", "the row written on the first tile only");
  for (const char* twin : {"(K + 62) // 64", "K // 64"}) {
    expectFoundNotProved(replace(fixed, "(K + 63) // 64", twin), "sync.deadlock", twin);
    expectFoundNotProved(replace(broken, "(K + 63) // 64", twin), "data.stale-read", twin);
  }
}

// The canonical form's ceiling division: lm.cdiv(x, c) is (x + c - 1) // c
// for a constant c > 1 and every integer x (checked here on both signs);
// not for a negative divisor, nor with another shift.
TEST(ValueEquality, CeilingDivisionIsTheShiftedFloorDivision) {
  using ir::ExprKind;
  const auto n = std::make_shared<ir::Expr>(ir::Expr{.kind = ExprKind::Param, .index = 0});
  const auto op = [](ExprKind k, ir::ExprPtr a, ir::ExprPtr b) { return ir::makeExpr(k, {a, b}); };
  const auto c = [](int64_t v) { return ir::makeConst(v); };
  const auto shifted = [&](int64_t add, int64_t d) { return op(ExprKind::FloorDiv, op(ExprKind::Add, n, c(add)), c(d)); };
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::CDiv, n, c(64)), *shifted(63, 64)));
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::CDiv, op(ExprKind::Add, n, c(1)), c(2)), *shifted(2, 2)));
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::CDiv, n, c(64)), *shifted(62, 64)));
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::CDiv, n, c(64)), *op(ExprKind::FloorDiv, n, c(64))));
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::CDiv, n, c(-1)), *shifted(-2, -1)));  // -x against 2 - x
  for (int64_t d : {2, 3, 64})
    for (int64_t x = -200; x <= 200; ++x) {
      ir::EvalEnv env;
      env.params[0] = x;
      EXPECT_EQ(ir::evaluate(*op(ExprKind::CDiv, n, c(d)), env), ir::evaluate(*shifted(d - 1, d), env)) << x << " " << d;
    }
}
