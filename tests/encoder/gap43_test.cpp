// Exit-0 gaps of the bounded check that helper gap43 closed
// (bench/attacks/gap43_attacks.py; docs/z3.md "Loop pairs off their line,
// guards on two loop variables, the optimizer's resource limit"): broken
// schedules that exited 0 *checked* with nothing named on main, now found
// (or *unknown* with their corner named), beside correct twins:
//  * two roles' loops whose counts lie on a line other than a - b = c (the
//    producer's `2 * lm.cdiv(K, 128)` against a consumer capped at
//    `min(lm.cdiv(K, 128), 40)`): the loop pair's corner asked only for a new
//    value of the difference, which K = 1000 gave (BindingSearch::offTheirLine);
//  * a guard that reads two loop variables (`not (k >= 6 and t >= 2)` around
//    the persistent ring's consumer wait): each part's loop ran past its
//    threshold alone (gap43's forms; the merged tree places them with helper
//    sound43's FlipGoal::others, gap43's own placement was not merged: its
//    solver queries cost seconds on corpus files);
//  * the search's optimization queries stop at a resource limit of their own
//    (BvProver::optimizerRlimit), not at the wall clock.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attack_util.h"
#include "cover_kernels.h"
#include "encoder/bv_prover.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace gap43_test {

// The two-slot ring whose producer loads 2 * lm.cdiv(K, 128) blocks, with
// the consumer's count `count` and an extra lm.assume fact (none where empty).
std::string consumerCount(const std::string& count, const std::string& fact = "") {
  std::string t = cake::testing::corpusText("corpus/bugs/sync.deadlock/sm90_ws_two_slots_producer_bound_floored_fixed.cake");
  t = cake::testing::replace(t, "        for j in lm.range(0, (K + 127) // 128):\n",
                             "        for j in lm.range(0, " + count + "):\n");
  if (!fact.empty())
    t = cake::testing::withFactOnK(t, fact);
  return t;
}

}  // namespace gap43_test

namespace g43 = gap43_test;

// A consumer capped at 40 iterations leaves the producer's loads from K =
// 5121 on (exit 0 *checked* on main: the pair's corner K = 1000 passed);
// capped at 16777215 it parts only at K > 2^31 - 128, a system too large to
// explore: *unknown*, the corner named. Under the fact that keeps K within
// the cap the twin is proved. Cost: about 1.5 s.
TEST(Gap43, ALoopPairOffItsLineIsRun) {
  using cake::testing::attacks::expectFoundNotProved;
  expectFoundNotProved(g43::consumerCount("min(lm.cdiv(K, 128), 40)"), "sync.async-at-exit",
                       "a consumer capped at 40 iterations");
  auto mod = cake::testing::compile(g43::consumerCount("min(lm.cdiv(K, 128), 16777215)"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto far = cake::testing::attacks::modelCheck(mod.schedules.at(0));
  EXPECT_FALSE(far.proved);
  EXPECT_TRUE(far.rules.empty()) << far.detail;
  EXPECT_NE(far.detail.find("unknown"), std::string::npos) << far.detail;
  EXPECT_NE(far.detail.find("the corner K=2147483521"), std::string::npos) << far.detail;
  cake::testing::attacks::expectNoSyncFinding(g43::consumerCount("min(lm.cdiv(K, 128), 40)", "K <= 128 * 40"),
                                              "the cap under a fact that keeps K within it");
}

// The wait skipped where k >= 6 on tiles from 2 on, or at k = 6 of every
// third tile (exit 0 *checked* on main), races with that slot's load; the
// twin whose guard holds everywhere stays clean. The bounded check alone
// (the ring's proof is unknown with either guard). Cost: about 1 s.
TEST(Gap43, AGuardOnTwoLoopVariablesIsPlacedWhole) {
  EXPECT_TRUE(cake::testing::cover::boundedVerdict(cake::testing::queryEmptyWaitIf("not (k >= 6 and t >= 2)")).rules.count("sync.race"));
  EXPECT_TRUE(cake::testing::cover::boundedVerdict(cake::testing::queryEmptyWaitIf("k != 6 or t % 3 != 2")).rules.count("sync.race"));
  EXPECT_TRUE(cake::testing::cover::boundedVerdict(cake::testing::queryEmptyWaitIf("k == t % 2 or k != t % 2")).rules.empty());
}

// An optimization query out of its resource units answers Unknown, whatever
// the wall clock (Z3's optimizer gives "unknown" as its reason); with the
// prover's own limits it finds the least witness. Cost: about 0.1 s.
TEST(Gap43, TheOptimizersQueriesStopAtTheirResourceLimit) {
  auto mod = cake::testing::compile(g43::consumerCount("(K + 127) // 128"));
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.at(0);
  auto k = std::make_shared<ir::Expr>();
  k->kind = ir::ExprKind::Param;
  for (size_t p = 0; p < s.params.size(); ++p)
    if (s.params[p].name == "K") k->index = static_cast<int>(p);
  ASSERT_GE(k->index, 0);
  const ir::ExprPtr cond = ir::makeExpr(ir::ExprKind::Eq, {ir::makeExpr(ir::ExprKind::Mod, {k, ir::makeConst(977)}),
                                                           ir::makeConst(5)});
  encoder::BvProver prover(s);
  EXPECT_EQ(prover.smallestWitness(cond, {k}).kind, encoder::BvVerdict::Fails);
  prover.optimizerRlimit(1);
  EXPECT_EQ(prover.smallestWitness(cond, {k}).kind, encoder::BvVerdict::Unknown);
}
