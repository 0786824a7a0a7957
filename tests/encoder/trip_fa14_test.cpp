// First K iterations of their own together with the last tiles and a part
// before the K loop that moves with the ring (docs/z3.md "First K
// iterations of the last tiles with copies per ring start", helper fa4c44,
// session 44; obstacle 1 (c) of FA4's correction warpgroup, the form
// FA4's MMA has). The pair was refused before the grids per ring start
// (`the schedule reads the tile count inside the tile loop, a part before
// its K loop moves with the ring and its K loop's first iteration
// differs`); the last tiles' grids per ring start are now checked once,
// after the first iterations' copies, against both copies
// (lastTilesAtRingStart). Broken forms, each found by the bounded check,
// are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa14_test {

const std::string& kFirstWait = cake::testing::kQRingFirstWaitLine;
const std::string& kRelease = cake::testing::kQueryRingRelease;
const std::string kTileStartWait = "            lm.wait(full, iter=t * k_tiles)\n";
const std::string kStepWait = "                if k > 0:\n                    lm.wait(full, iter=it)\n";

// The two-slot Q ring of trip_fa13_test.cpp (released after every tile
// but the last two: the tile count read to depth 2; its consumer waits for
// its Q in the tile's first K iteration, `if k == 0:`) whose consumer also
// waits for its tile's first K slot before its K loop (`t * k_tiles`: a
// part that moves with the ring) and in its other K iterations only, as
// FA4's MMA waits `k_full` for its first S before its K loop and `o_empty`
// in its first K iteration.
std::string qRingFirstWaitAtRingStart() {
  using cake::testing::replace;
  const std::string loop = "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n" + kFirstWait;
  return replace(replace(cake::testing::qRingFirstWait(), loop, kTileStartWait + loop),
                 "                lm.wait(full, iter=it)\n", kStepWait);
}
const std::string kQRingFirstWaitAtRingStart = qRingFirstWaitAtRingStart();

}  // namespace trip_fa14_test

namespace tfa14 = trip_fa14_test;

// Refused before (obstacle 1 (c) with a part before the K loop that
// moves), proved now, with depth 2 and depth 1.
TEST(TripFa14, FirstIterationWithLastTilesAndRingStartCopiesIsProved) {
  using cake::testing::replace;
  for (const std::string& text : {tfa14::kQRingFirstWaitAtRingStart,
                                  replace(tfa14::kQRingFirstWaitAtRingStart, "t + 2 < tiles", "t + 1 < tiles")}) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}

namespace trip_fa14_test {

// `if k == 0:` whose tile takes `then` where `cond` holds, else `otherwise`.
std::string firstIterationIf(const std::string& cond, const std::string& then, const std::string& otherwise) {
  return "                if k == 0:\n                    if " + cond + ":\n                        " + then +
         "\n                    else:\n                        " + otherwise + "\n";
}

}  // namespace trip_fa14_test

// Broken forms of the base's first iteration in the last tiles, each broken
// at its witness, found by `cake check` and not proved.
TEST(TripFa14, BrokenFirstIterationsOfTheLastTilesAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string& w = tfa14::kFirstWait;
  at::attack(
      tfa14::kQRingFirstWaitAtRingStart, {{"M", 3 * 64}, {"K", 128}},
      {
          {{{w, tfa14::firstIterationIf("t + 1 < tiles", "lm.wait(q_full, iter=t)", "lm.wait(q_full, iter=t + 1)")}},
           "the last tile's first iteration waits for a Q tile that never comes",
           {{"M", 64}, {"K", 64}}},
          {{{w, tfa14::firstIterationIf("t + 2 == tiles", "lm.wait(q_full, iter=t - 2)", "lm.wait(q_full, iter=t)")}},
           "the second-to-last tile's first iteration waits for the phase two tiles back",
           {{"M", 2 * 64}, {"K", 64}}},
          {{{w, "                if k == 0 and t + 1 < tiles:\n                    lm.wait(q_full, iter=t)\n"}},
           "the last tile's first iteration does not wait for its Q",
           {{"M", 64}, {"K", 64}}},
          {{{w, tfa14::firstIterationIf("t + 1 < tiles", "lm.wait(q_full, iter=t)",
                                        "lm.wait(full, iter=t * k_tiles + 1)\n                        "
                                        "lm.wait(q_full, iter=t)")}},
           "the last tile's first iteration waits for its second K slot too (never loaded with one block)",
           {{"M", 64}, {"K", 64}}},
      });
}

// Broken forms of the base's tile-start wait, Q release and K-step wait,
// each broken at its witness, found by `cake check` and not proved.
TEST(TripFa14, BrokenWaitsAndReleasesAroundTheFirstIterationAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string& w = tfa14::kFirstWait;
  at::attack(
      tfa14::kQRingFirstWaitAtRingStart, {{"M", 3 * 64}, {"K", 128}},
      {
          {{{tfa14::kTileStartWait, "            if t + 1 < tiles:\n                lm.wait(full, iter=t * k_tiles)\n"
                                    "            else:\n                lm.wait(full, iter=t * k_tiles - 1)\n"}},
           "the last tile waits for its first K slot one ring position early",
           {{"M", 64}, {"K", 64}}},
          {{{w, w + "                if k == 0 and t + 3 == tiles:\n                    lm.arrive(q_empty, iter=t)\n"},
            {tfa14::kRelease, "            if t + 2 < tiles and t + 3 != tiles:\n                lm.arrive(q_empty, "
                              "iter=t)\n"}},
           "the third-to-last tile releases its Q slot in its first iteration, before its MMA reads it",
           {{"M", 3 * 64}, {"K", 64}}},
          {{{tfa14::kStepWait, "                if k > 1:\n                    lm.wait(full, iter=it)\n"}},
           "the second K iteration reads its slot without waiting for it",
           {{"M", 64}, {"K", 128}}},
      });
}

// With a part after the K loop that reads the tile's ring end as well (the
// consumer releases each K slot one iteration late and the tile's last
// after its K loop) in the process whose part before the K loop moves: the
// copies per ring start require that process's part after the K loop to be
// the grid's at every ring start (presByRingStart), and its ring end moves
// with the ring start: refused there (session 44 refused it before, with
// the last tiles; the pair itself is lifted, trip_fa15_test.cpp); clean on
// the bounded check.
TEST(TripFa14, RingStartAndRingEndInOneProcessWithLastTilesAreRefused) {
  using cake::testing::replace;
  const std::string text = replace(tfa14::kQRingFirstWaitAtRingStart, "                lm.arrive(empty, iter=it)\n",
                                   "                if k > 0:\n                    lm.arrive(empty, iter=it - 1)\n"
                                   "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n");
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("consumer's part after the K loop differs when its tile starts at ring position 1"),
            std::string::npos)
      << r.detail;
  auto [proved, rules, detail] = cake::testing::attacks::modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(rules.empty()) << detail;
}
