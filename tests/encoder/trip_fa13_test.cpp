// First K iterations of their own together with the last tiles (docs/z3.md
// "First K iterations of the last tiles", helper fa4w, session 43;
// obstacle 1 (c) of FA4's correction warpgroup). The first iterations'
// copies per ring start were refused together with a read of the tile
// count (`the schedule reads the tile count inside the tile loop and its K
// loop's first iteration differs`); they are now checked against the last
// tiles' grids per ring start (lastTilesFirstIterations). Where a part
// before the K loop moves with the ring as well, the refusal stays, asked
// before the grids per ring start. Broken forms, each found by the bounded
// check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa13_test {

// The two-slot Q ring of trip_fa8_test.cpp (released after every tile but
// the last two: the tile count read to depth 2) whose consumer waits for
// its tile's Q in the tile's first K iteration (`if k == 0:`, a first K
// iteration of its own) instead of before its K loop.
const std::string kFirstWait = "                if k == 0:\n                    lm.wait(q_full, iter=t)\n";
const std::string kRelease = cake::testing::kQueryRingRelease;

std::string qRingFirstWait() {
  return cake::testing::pairs::edited(cake::testing::queryRing(), {
      {"def q_ring_release(", "def q_ring_first_wait("},
      {"            lm.wait(q_full, iter=t)\n", ""},
      {"                lm.wait(full, iter=it)\n", kFirstWait + "                lm.wait(full, iter=it)\n"},
  });
}
const std::string kQRingFirstWait = qRingFirstWait();

}  // namespace trip_fa13_test

namespace tfa13 = trip_fa13_test;

// Refused before (obstacle 1 (c)), proved now, with depth 2 and depth 1;
// broken forms of the first iteration in the last tiles are not proved.
TEST(TripFa13, FirstIterationWithLastTilesIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  using cake::testing::replace;
  {
    auto mod = cake::testing::compile(replace(tfa13::kQRingFirstWait, "t + 2 < tiles", "t + 1 < tiles"));
    const auto r = at::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
  const std::string& w = tfa13::kFirstWait;
  auto guarded = [](const std::string& cond, const std::string& wait) {
    return "                if k == 0 and " + cond + ":\n                    " + wait + "\n";
  };
  at::attack(
      tfa13::kQRingFirstWait, {{"M", 3 * 64}, {"K", 128}},
      {
          {{{w, "                if k == 0:\n                    if t + 1 < tiles:\n                        "
                "lm.wait(q_full, iter=t)\n                    else:\n                        lm.wait(q_full, iter=t "
                "+ 1)\n"}},
           "the last tile's first iteration waits for a Q tile that never comes",
           {{"M", 64}, {"K", 64}}},
          {{{w, "                if k == 0:\n                    if t + 2 == tiles:\n                        "
                "lm.wait(q_full, iter=t - 2)\n                    else:\n                        lm.wait(q_full, "
                "iter=t)\n"}},
           "the second-to-last tile's first iteration waits for the phase two tiles back",
           {{"M", 4 * 64}, {"K", 64}}},
          {{{w, guarded("t + 1 < tiles", "lm.wait(q_full, iter=t)")}},
           "the last tile's first iteration does not wait for its Q",
           {{"M", 2 * 64}, {"K", 64}}},
          // (a read of the tile count that only ring starts above 0 take:
          // refused in the copies, refuseTileCountReadsInCopies)
          {{{w, "                if k == 0:\n                    if it == 0:\n                        "
                "lm.wait(q_full, iter=t)\n                    elif t + 1 < tiles:\n                        "
                "lm.wait(q_full, iter=t)\n"}},
           "the last tile's first iteration does not wait for its Q past ring start 0",
           {{"M", 2 * 64}, {"K", 64}}},
          {{{w, w + guarded("t + 3 == tiles", "lm.arrive(q_empty, iter=t)")},
            {tfa13::kRelease, "            if t + 2 < tiles and t + 3 != tiles:\n                lm.arrive(q_empty, "
                              "iter=t)\n"}},
           "the third-to-last tile releases its Q slot in its first iteration, before its MMA reads it",
           {{"M", 3 * 64}, {"K", 64}}},
          {{{w, "                if k == 0:\n                    lm.wait(q_full, iter=t - 1)\n"}},
           "the first iteration waits for Q's phase one tile early",
           {{"M", 2 * 64}, {"K", 64}}},
      });
}

// With a part before the K loop that moves with the ring as well (the
// consumer waits for its tile's first slot before its K loop), the pair
// is still refused, now before the grids per ring start are built.
TEST(TripFa13, FirstIterationWithLastTilesAndRingStartCopiesIsRefusedEarly) {
  using cake::testing::replace;
  const std::string kConsumerLoop =
      "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n" + tfa13::kFirstWait;
  const std::string text =
      replace(replace(tfa13::kQRingFirstWait, kConsumerLoop, "            lm.wait(full, iter=t * k_tiles)\n" + kConsumerLoop),
              "                lm.wait(full, iter=it)\n", "                if k > 0:\n                    lm.wait(full, iter=it)\n");
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("a part before its K loop moves with the ring and its K loop's first iteration differs"),
            std::string::npos)
      << r.detail;
  auto [proved, rules, detail] = cake::testing::attacks::modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(rules.empty()) << detail;
}
