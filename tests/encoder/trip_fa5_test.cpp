// Read generations and counted phases through the ring position where a
// tile's K iterations add mbarrier waits that tile 0 leaves out (docs/z3.md
// "Read generations per view past a wait left out in tile 0", helper fa5,
// session 36; part of obstacle 3 of FA4's correction warpgroup). The MMA
// warp of the read-generation kernel waits for the epilogue's release of O
// (`lm.wait(o_empty, iter=t - 1)`) in every K iteration instead of once per
// tile: the wait's iteration is negative in tile 0, so the builder leaves it
// out there and tile 0's K iterations are shorter than every later tile's.
// The alignment compared whole iterations and aligned nothing for the MMA
// (`smem_p and smem_p share bytes but move by 0 and 24 laps per period`);
// it now pairs the iterations besides their mbarrier waits and compares,
// per view, what moves the read marker between the view's accesses. Broken
// forms, each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "read_gen_kernel.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa5_test {

using cake::testing::replace;

const std::string kFa5OuterWait = "            lm.wait(o_empty, iter=t - 1)\n            for j";
const std::string kFa5PFullWait = "                lm.wait(p_full, iter=g)\n";
const std::string kFa5InnerWait = "                lm.wait(o_empty, iter=t - 1)\n";
const std::string kFa5Pv = "                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))\n";

// The kernel with the release of O waited in every K iteration, just before
// the PV MMA (tile 0: no wait there).
const std::string kFa5WaitInTheKLoop =
    replace(replace(cake::testing::read_gen::kReadGenKernel, kFa5OuterWait, "            for j"), kFa5PFullWait,
            kFa5PFullWait + kFa5InnerWait);

std::vector<cake::testing::attacks::Attack> fa5Attacks() {
  const std::string v_full = "                lm.wait(v_full, iter=g)\n";
  return {
      {{{v_full + kFa5PFullWait + kFa5InnerWait + kFa5Pv, kFa5InnerWait + kFa5Pv + v_full + kFa5PFullWait}},
       "the MMA reads P and V with only the release of O waited before (none in tile 0)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kFa5PFullWait + kFa5InnerWait + kFa5Pv, kFa5InnerWait + kFa5Pv + kFa5PFullWait}},
       "the MMA reads P before waiting for it (the release of O waited before it from tile 1 on)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"lm.wait(p_full, iter=g)", "lm.wait(p_full, iter=g - 1)"}},
       "the MMA waits for the previous block's P",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"lm.wait(p_empty, iter=g - 1)", "lm.wait(p_empty, iter=g - 2)"}},
       "the softmax waits for the release of P one lap early",
       {{"seqlen_k", 1}, {"T", 3}}},
      {{{"                lm.wait(p_empty, iter=g - 1)\n", ""}},
       "the softmax overwrites P without waiting for the PV MMA's release",
       {{"seqlen_k", 129}, {"T", 1}}},
      {{{kFa5InnerWait, "                lm.wait(o_empty, iter=t)\n"}},
       "the MMA waits for the release of its own tile's O (never comes)",
       {{"seqlen_k", 1}, {"T", 1}}},
  };
}

// The release of O waited in the first K iteration of each tile only (FA4's
// MMA: `if j == 0: lm.wait(o_empty, iter=t - 1)`): a first K iteration of
// its own, copied per ring start, with the read generations of P aligned.
const std::string kFa5FirstWait = "                if j == 0:\n                    lm.wait(o_empty, iter=t - 1)\n";
const std::string kFa5WaitInTheFirstIteration = replace(kFa5WaitInTheKLoop, kFa5InnerWait, kFa5FirstWait);

std::vector<cake::testing::attacks::Attack> fa5FirstAttacks() {
  const std::string v_full = "                lm.wait(v_full, iter=g)\n";
  return {
      {{{kFa5PFullWait, "                if j > 0:\n                    lm.wait(p_full, iter=g)\n"}},
       "the MMA's first K iteration of a tile reads P without waiting for it",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{v_full, "                if j > 0:\n                    lm.wait(v_full, iter=g)\n"}},
       "the MMA's first K iteration of a tile reads V without waiting for its load",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kFa5FirstWait, "                if j == 0:\n                    lm.wait(o_empty, iter=t)\n"}},
       "the MMA's first K iteration waits for the release of its own tile's O (never comes)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"lm.wait(p_full, iter=g)", "lm.wait(p_full, iter=g - 1)"}},
       "the MMA waits for the previous block's P",
       {{"seqlen_k", 1}, {"T", 1}}},
  };
}

}  // namespace trip_fa5_test

namespace tf5 = trip_fa5_test;

TEST(TripFa5, WaitLeftOutInTileZeroInsideTheKLoopIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf5::kFa5WaitInTheKLoop, {{"seqlen_k", 257}, {"T", 3}}, tf5::fa5Attacks());
}

TEST(TripFa5, WaitOfTheFirstKIterationOnlyIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf5::kFa5WaitInTheFirstIteration, {{"seqlen_k", 257}, {"T", 3}},
                                 tf5::fa5FirstAttacks());
}
