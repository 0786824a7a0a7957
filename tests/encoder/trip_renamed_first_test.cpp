// The tile period of the renamed reads first (helper fa4_51, session 51,
// issue 11; docs/z3.md "The tile period of the renamed reads first"). At a
// ring window of Wg K iterations the grid names the tile-first S's read of
// `smem_k[t * n_blocks]` by stage with a generation capped at the loader's
// laps of the index per tile (about Wg / 2), so below 24 iterations the
// exact tile period search found a period, with a warm-up of about Wg / 2,
// and fa4_50's search with those reads left out (asked only where the
// exact one found none) was not asked: the narrow 16 x 12 window's tile
// warm-up was 7, and the exploration of tiles of one K iteration left it
// (FA4, and left49's kernel with Q on two slots). The renamed search is
// now asked where the exact one succeeds too, and taken where its tile
// shift starts earlier.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "s_ahead_kernel.h"
#include "test_util.h"

namespace trip_renamed_first_test {

cake::encoder::ModelCheckResult proveWith(const cake::ir::Schedule& s, bool renamed_first) {
  cake::encoder::TripProofOptions o;
  o.work = cake::encoder::ProofBudget::unitsFor(3.0);  // `cake check`'s default
  o.rlimit = cake::testing::kQueryRlimit;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.renamed_period_first = renamed_first;
  return cake::encoder::proveEveryTripCount(s, s.target, cake::checks::coveringBindings(s), o);
}

}  // namespace trip_renamed_first_test

// left49's kernel with Q on two slots. fa4_51 wrote this test for the
// narrow window holding only with the renamed reads' period first (16 x 24
// without it); on the merged tree of session 51 both searches prove it in the
// narrow window (the same tile period 2; about 2.8e8 units each, the lead's
// clean clone), so what is left to assert here is that asking the renamed
// search first costs no proof and no extra window. FA4, where the two differ
// (16 x 12 against 16 x 24), is TripSlopedTail.SlowFa4IsProved's.
TEST(TripRenamedFirst, TheNarrowWindowHoldsWithTheRenamedReadsTilePeriod) {
  auto mod = cake::testing::compile(cake::testing::s_ahead::qOnTwoSlots());
  ASSERT_FALSE(mod.schedules.empty());
  const auto now = trip_renamed_first_test::proveWith(mod.schedules.at(0), true);
  EXPECT_EQ(now.outcome, cake::encoder::Outcome::Proved) << now.detail;
  EXPECT_NE(now.engine.find("window 16 tiles x 12 iterations"), std::string::npos) << now.engine;
  const auto before = trip_renamed_first_test::proveWith(mod.schedules.at(0), false);
  EXPECT_EQ(before.outcome, cake::encoder::Outcome::Proved) << before.detail;
  EXPECT_NE(before.engine.find("window 16 tiles x 12 iterations"), std::string::npos) << before.engine;
  EXPECT_GT(cake::testing::attacks::proofWorkUnits(now.engine), 0u) << now.engine;
  EXPECT_LE(cake::testing::attacks::proofWorkUnits(now.engine),
            cake::testing::attacks::proofWorkUnits(before.engine) * 11 / 10)
      << now.engine << "\n" << before.engine;
}
