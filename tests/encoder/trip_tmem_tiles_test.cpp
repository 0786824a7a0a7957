// Persistent kernels whose tiles do different things to tensor memory by
// their index (the double-buffered accumulator's `if t % 2 == 0`): the
// proof's grid starts every tile at ring index 0, so the one run that marks
// TMEM hazards marked nothing past tile 0, and two broken forms of the
// corpus's double-TMEM GEMM were proved (found by helper streamk, session 34;
// docs/known-limits.md "Persistent kernels: TMEM hazards between tiles").
// The proof now also runs the window's tiles one after another on the ring
// (encoder/trip_proof.cpp checkConsecutiveTileHazards).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

namespace {

using cake::testing::attacks::Attack;

const std::string kTmemTilesEvenMma =
    "                if t % 2 == 0:\n"
    "                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n";

// The base stays proved; each broken form is broken at its witness (block 0
// of a grid of 1: tiles 0, 1, 2 at M = 257), not proved, and found by `cake
// check`. Both were proved before the consecutive run.
TEST(TripTmemTiles, TileDependentAccumulatorBugsAreNotProved) {
  const std::string base = cake::testing::corpusText("corpus/gemm/sm100_persistent_double_tmem.cake");
  const std::vector<Attack> attacks = {
      {{{kTmemTilesEvenMma,
         "                if t == 0:\n"
         "                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n"
         "                elif t % 2 == 0:\n"
         "                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=False)\n"}},
       "the even tiles after the first add onto the result of two tiles before",
       {{"M", 257}, {"N", 1}, {"K", 1}}},
      {{{"lm.mma(tmem_acc1, smem_a[it], smem_b[it], init=(k == 0))",
         "lm.mma(tmem_acc1, smem_a[it], smem_b[it], init=False)"}},
       "the odd tiles never reset their accumulator",
       {{"M", 129}, {"N", 1}, {"K", 1}}},
  };
  cake::testing::attacks::attack(base, {{"M", 257}, {"N", 129}, {"K", 65}}, attacks);
}

}  // namespace
