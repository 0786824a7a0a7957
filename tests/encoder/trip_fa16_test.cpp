// Last tiles' grids that build alike (docs/z3.md "Last tiles' grids that
// build alike", helper fa4d46, session 46; the cost of FA4's correction
// warpgroup): a grid built with the tile count read as the d-th tile from
// the end (buildLastGrids, the last tiles' grids per ring start and per
// ring end) is copied for a deeper depth where every read of the tile count
// it made evaluates alike there (`if t + 2 < tiles:` is false in the last
// tile and in the one before), not built again. The proof is the same, its
// builds fewer: a budget main used up proves it now. Broken forms whose
// last tiles differ by depth are still found and not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa16_test {

// trip_fa15_test.cpp's kernel: the two-slot Q ring handed back `if t + 2 <
// tiles:` (the tile count read to depth 2, alike at depths 1 and 2), the
// consumer waiting for its Q in the tile's first K iteration and releasing
// each K slot one iteration late and the tile's last after its K loop (a
// part after the K loop that reads the ring end): every site of the last
// tiles' grids (at ring start 0, per ring start, per ring end) builds.
std::string qRingRingEnd() {
  return cake::testing::replace(cake::testing::qRingFirstWait(), "                lm.arrive(empty, iter=it)\n",
                                "                if k > 0:\n                    lm.arrive(empty, iter=it - 1)\n"
                                "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n");
}

const std::string kRelease = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n";

}  // namespace trip_fa16_test

namespace tfa16 = trip_fa16_test;

// Measured (CAKE_PROOF_STATS): main's proof of this kernel takes 710,045,670
// work units; with the depths 1 and 2 built once, 579,884,070. A budget
// between the two proves it now and ran out on main.
TEST(TripFa16, LastTilesGridsThatBuildAlikeAreBuiltOnce) {
  auto mod = cake::testing::compile(tfa16::qRingRingEnd());
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.at(0);
  encoder::TripProofOptions o;
  o.work = 645'000'000;
  o.rlimit = cake::testing::kQueryRlimit;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  const auto r = encoder::proveEveryTripCount(s, s.target, checks::coveringBindings(s), o);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Broken forms whose last tiles read the tile count otherwise by depth
// (a read that differs at depth 2 in another process than the alike
// release, or in the same statement's other branch): each found by `cake
// check` and not proved; the depth-2 grids are built, not copied.
TEST(TripFa16, BrokenLastTilesThatDifferByDepthAreNotProved) {
  namespace at = cake::testing::attacks;
  at::attack(tfa16::qRingRingEnd(), {{"M", 3 * 64}, {"K", 128}},
             {
                 {{{"            lm.wait(q_empty, iter=t - 2)\n",
                    "            if t + 2 != tiles:\n                lm.wait(q_empty, iter=t - 2)\n"}},
                  "the second-to-last tile's Q load does not wait for its slot's release",
                  {{"M", 4 * 64}, {"K", 64}}},
                 {{{tfa16::kRelease, tfa16::kRelease + "            elif t + 2 == tiles:\n"
                                                       "                lm.arrive(q_empty, iter=t + 1)\n"}},
                  "the second-to-last tile releases the next tile's Q slot",
                  {{"M", 3 * 64}, {"K", 64}}},
             });
}
