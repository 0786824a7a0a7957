// Last tiles that start and end inside the window: first K iterations of
// their own, a read of the tile count and a part after the K loop that
// reads the tile's ring end together (docs/z3.md "Last tiles that start and
// end inside the window", helper fa4d45, session 45; the pair behind
// obstacle 1 (c) of FA4's correction warpgroup). Refused before (`the
// schedule reads the tile count inside the tile loop, its K loop's first
// iteration differs and a part after its K loop reads the tile's ring
// end`); the last tiles' grids per ring start now compare such a part
// besides what its ring end evaluates. Broken forms, each found by the
// bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa15_test {

const std::string kSlotRelease = "                lm.arrive(empty, iter=it)\n";
// (each K slot released one iteration late, the tile's last after its K
// loop: a part after the K loop that reads the tile's ring end)
const std::string kLateRelease = "                if k > 0:\n                    lm.arrive(empty, iter=it - 1)\n";
const std::string kRingEndRelease = "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n";

// trip_fa13_test.cpp's Q ring (released after every tile but the last
// two, its consumer waiting for its Q in the tile's first K iteration)
// whose consumer releases each K slot one iteration late and the tile's
// last after its K loop: the last tiles run a first K iteration of their
// own at their ring start and a part after the K loop that reads their
// ring end (FA4's correction has both; its release of Q is the MMA's).
std::string qRingRingEnd() {
  return cake::testing::replace(cake::testing::qRingFirstWait(), kSlotRelease, kLateRelease + kRingEndRelease);
}
const std::string kQRingRingEnd = qRingRingEnd();

// The ring-end release where `cond` holds replaced by `then`.
std::string ringEndReleaseIf(const std::string& cond, const std::string& then) {
  return "            if " + cond + ":\n                " + then + "\n            else:\n    " + kRingEndRelease;
}

}  // namespace trip_fa15_test

namespace tfa15 = trip_fa15_test;

// Refused before (the pair of first copies and the last tiles' copies per
// ring end), proved now, with depth 2 and depth 1.
TEST(TripFa15, FirstIterationWithLastTilesAndARingEndIsProved) {
  using cake::testing::replace;
  for (const std::string& text :
       {tfa15::kQRingRingEnd, replace(tfa15::kQRingRingEnd, "t + 2 < tiles", "t + 1 < tiles")}) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}

// Broken forms of the last tiles' ring-end release and first iteration,
// each broken at its witness, found by `cake check` and not proved.
TEST(TripFa15, BrokenRingEndReleasesOfTheLastTilesAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string& r = tfa15::kRingEndRelease;
  at::attack(
      tfa15::kQRingRingEnd, {{"M", 3 * 64}, {"K", 128}},
      {
          {{{r, "            if t + 2 != tiles:\n    " + r}},
           "the second-to-last tile does not release its last K slot",
           {{"M", 2 * 64}, {"K", 128}}},
          {{{r, tfa15::ringEndReleaseIf("t + 2 == tiles", "lm.arrive(empty, iter=t * k_tiles + k_tiles)")}},
           "the second-to-last tile releases the next tile's first K slot instead of its last",
           {{"M", 3 * 64}, {"K", 64}}},
          {{{r, tfa15::ringEndReleaseIf("t + 2 == tiles", "lm.arrive(empty, iter=t * k_tiles + k_tiles - 2)")}},
           "the second-to-last tile releases its second-to-last K slot again",
           {{"M", 3 * 64}, {"K", 64}}},
          {{{r, tfa15::ringEndReleaseIf("t + 3 == tiles", "lm.arrive(empty, iter=t * k_tiles + k_tiles)")}},
           "the third-to-last tile releases the next tile's first K slot instead of its last",
           {{"M", 3 * 64}, {"K", 64}}},
          {{{cake::testing::kQRingFirstWaitLine,
             "                if k == 0:\n                    if t + 1 < tiles:\n                        lm.wait(q_full, "
             "iter=t)\n                    else:\n                        lm.wait(q_full, iter=t + 1)\n"}},
           "the last tile's first iteration waits for a Q tile that never comes",
           {{"M", 64}, {"K", 64}}},
      });
}
