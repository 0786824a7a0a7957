// Windows that stop at an lm.sync barrier's second generation
// (encoder/sim_por.cpp, Reducer::precomputeSyncOnly and windows(); docs/z3.md
// "Windows that stop at an lm.sync barrier's next generation"). While the
// seed stands still, a barrier whose every arrival is an lm.sync and whose
// other warps cannot complete a generation alone completes at most its
// current generation, so another process's window passes at most one of
// its waits. On Marlin's K loop (four warps, an lm.sync every iteration) the
// windows went through every iteration of the lap window before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder/proof_budget.h"
#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace por_sync_generation_test {

const char* kMarlinFixed = "corpus/bugs/sync.race/vllm_marlin_block_reduce_scratch_aliases_a_stages_fixed.cake";

// The Marlin fix (vLLM PR #11493) with one slice.
std::string marlinOneSlice() {
  return cake::testing::replace(cake::testing::corpusText(kMarlinFixed), "    lm.assume(K >= 64)\n",
                                "    lm.assume(K >= 64)\n    lm.assume(n_slices == 1)\n");
}

encoder::ModelCheckResult proveAtTheDefaultBudget(const std::string& text) {
  auto m = cake::testing::compile(text);
  const ir::Schedule& s = m.schedules.at(0);
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = encoder::ProofBudget::unitsFor(3.0);  // `cake check`'s default budget
  return encoder::proveEveryTripCount(s, s.target, {cake::testing::bind(s, {{"n_slices", 1}, {"K", 64}})}, o);
}

// The explicit engine with and without the reduction, every rule: the same
// verdict and the same rules.
void reducedMatchesFull(const std::string& text, int64_t K) {
  auto m = cake::testing::compile(text);
  const ir::Schedule& s = m.schedules.at(0);
  const encoder::System sys = cake::testing::build(s, cake::testing::bind(s, {{"n_slices", 1}, {"K", K}}));
  encoder::ExploreOptions o = encoder::everyRule();
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.max_states = 2'000'000;
  o.reduce = false;
  const encoder::ModelCheckResult full = encoder::explore(sys, o);
  o.reduce = true;
  const encoder::ModelCheckResult red = encoder::explore(sys, o);
  ASSERT_NE(full.outcome, encoder::Outcome::Unknown) << full.detail;
  EXPECT_EQ(full.outcome, red.outcome) << "K=" << K << "\n" << text;
  EXPECT_EQ(cake::testing::ruleSet(full), cake::testing::ruleSet(red)) << "K=" << K << "\n" << text;
}

// Broken forms of the one slice, each with the K at which the bounded check
// meets it (one only from the fourth K tile on, K >= 193).
struct MarlinBrokenForm {
  std::string text;
  int64_t K;
};
std::vector<MarlinBrokenForm> marlinBrokenForms() {
  using cake::testing::replace;
  const std::string ok = marlinOneSlice();
  return {
      // the K loop's barrier dropped: a warp reads another's band before it lands
      {replace(ok, "                lm.sync(bar)\n                if k + 3", "                if k + 3"), 64},
      // the wait one group short: the stage read before its loads land
      {replace(ok, "lm.cp_async_wait(pending=2)", "lm.cp_async_wait(pending=3)"), 64},
      // the prefetch into the stage this iteration reads (from the fourth tile: K >= 193)
      {replace(replace(ok, "stage=4 * ((k + 3) % 4) + w)\n                    b_band",
                       "stage=4 * (k % 4) + w)\n                    b_band"),
               "stage=4 * ((k + 3) % 4) + w)\n                lm.cp_async_commit()",
               "stage=4 * (k % 4) + w)\n                lm.cp_async_commit()"),
       193},
      // the reduction's second barrier dropped: warp 0 reads red[0] before warp 1's sum
      {replace(ok, "                lm.copy(red[0], acc)\n            lm.sync(bar)\n",
               "                lm.copy(red[0], acc)\n"),
       64},
  };
}

}  // namespace por_sync_generation_test

// One slice of the Marlin fix is proved for every K trip count within
// `cake check`'s default budget (4,620,091,334 units before the windows
// stopped at the next generation: 1.5 times the budget).
TEST(PorSyncGeneration, MarlinOneSliceIsProvedWithinTheDefaultBudget) {
  using namespace por_sync_generation_test;
  const std::string text = marlinOneSlice();
  for (int64_t K : {64, 65, 129, 193, 257, 449})
    EXPECT_FALSE(cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"n_slices", 1}, {"K", K}}))
        << K;
  const encoder::ModelCheckResult r = proveAtTheDefaultBudget(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Its broken forms are met by the bounded check and never proved, the one
// that breaks only from the fourth K tile on included.
TEST(PorSyncGeneration, MarlinOneSliceBrokenFormsAreNotProved) {
  using namespace por_sync_generation_test;
  for (const MarlinBrokenForm& b : marlinBrokenForms()) {
    EXPECT_TRUE(cake::testing::violatedAt(cake::testing::compile(b.text).schedules.at(0), {{"n_slices", 1}, {"K", b.K}}))
        << b.text;
    EXPECT_NE(proveAtTheDefaultBudget(b.text).outcome, encoder::Outcome::Proved) << b.text;
  }
}

// The reduction with the windows cut at the next generation finds what the
// full interleaving finds, rule for rule, on the fix and its broken forms.
TEST(PorSyncGeneration, ReducedFindsWhatFullFindsOnFourSyncingWarps) {
  using namespace por_sync_generation_test;
  reducedMatchesFull(marlinOneSlice(), 64);
  reducedMatchesFull(marlinOneSlice(), 129);
  for (const MarlinBrokenForm& b : marlinBrokenForms()) reducedMatchesFull(b.text, b.K);
}
