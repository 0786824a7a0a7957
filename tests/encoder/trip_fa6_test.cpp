// The last K iterations of their own together with a last tile of its own
// (docs/z3.md "The last K iterations of the last tile", helper fa6, session
// 37; part of obstacle 1 of FA4's correction warpgroup). A persistent kernel
// whose consumer keeps one wgmma group in flight except in a tile's last K
// iteration (`if k + 1 < k_tiles:`, copies near the tile's end) and hands
// its one Q slot back after every tile's K loop but the last's (`if t + 1 <
// tiles:`, the last tiles' grids): before, unknown ("a K iteration reads the
// K loop's trip count besides t * E_B in a tile loop with two kinds of tile,
// a read of the tile count or a step"). A read of the tile count in a K
// iteration near a tile's end is refused: the copies there were built with
// every tile not the last, and a kernel without any other read of the tile
// count was proved with a bug in its last tile's last K iteration. Broken
// forms, each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa6_test {

using cake::testing::replace;

// The one-slot Q hand-off of docs/z3.md "The tile count inside the tile
// loop" with a last K iteration of its own: the wgmma group of the tile's
// last iteration, which reads Q, retires before the hand-off.
const std::string kLastTileLastIteration =
    replace(cake::testing::kQueryEmpty,
            "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n",
            "                if k + 1 < k_tiles:\n                    lm.mma_wait(pending=1)\n                else:\n"
            "                    lm.mma_wait(pending=0)\n                if it > 0:\n                    "
            "lm.arrive(empty, iter=it - 1)\n");

const std::string kLastWait = "                else:\n                    lm.mma_wait(pending=0)\n";
const std::string kHandOff = "            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n";

std::vector<cake::testing::attacks::Attack> lastTileAttacks() {
  return {
      {{{kLastWait, "                else:\n                    lm.mma_wait(pending=1)\n"}},
       "the last K iteration keeps its group in flight (Q handed back while the wgmma reads it)",
       {{"M", 128}, {"K", 64}}},
      {{{kLastWait, "                else:\n                    if t + 1 < tiles:\n                        "
                    "lm.bar_arrive(q_empty)\n                    lm.mma_wait(pending=0)\n"},
        {kHandOff, ""}},
       "Q handed back in the tile's last K iteration before its group retires (a read of the tile count there)",
       {{"M", 128}, {"K", 64}}},
      {{{kLastWait, "                else:\n                    if t + 1 < tiles:\n                        "
                    "lm.mma_wait(pending=0)\n                    else:\n                        "
                    "lm.mma_wait(pending=1)\n"}},
       "the last tile's last K iteration keeps its group in flight at exit",
       {{"M", 64}, {"K", 64}}},
      {{{"                lm.wait(empty, iter=it - 2)\n",
         "                if k + 1 < k_tiles:\n                    lm.wait(empty, iter=it - 2)\n"}},
       "the producer's last K iteration loads without waiting for its slot",
       {{"M", 64}, {"K", 192}}},
      {{{"if t + 1 < tiles:", "if t + 2 < tiles:"}},
       "the hand-off skipped by the second-to-last tile too (the producer hangs)",
       {{"M", 128}, {"K", 64}}},
      {{{"if t + 1 < tiles:", "if t + 1 > tiles:"}},
       "the hand-off never runs (the producer hangs)",
       {{"M", 128}, {"K", 64}}},
  };
}

// The kernel of docs/z3.md "The last K iteration", which reads the tile
// count nowhere else.
std::string lastIterationKernel() { return cake::testing::ringEndLastIteration(); }

std::vector<cake::testing::attacks::Attack> tileCountNearTheEndAttacks() {
  return {
      // proved before (the copies near the tile's end read the tile count as
      // t + 2 in every tile, so the last tile's `else:` was never explored)
      {{{kLastWait, "                else:\n                    if t + 1 < tiles:\n                        "
                    "lm.mma_wait(pending=0)\n                    else:\n                        "
                    "lm.mma_wait(pending=1)\n"}},
       "the last tile's last K iteration keeps its group in flight (lm.copy of acc races with it)",
       {{"M", 64}, {"K", 64}}},
      {{{kLastWait, "                else:\n                    lm.mma_wait(pending=0)\n                    if t + 1 "
                    "== tiles:\n                        lm.wait(full, iter=it + 1)\n"}},
       "the last tile's last K iteration waits for a load that never comes",
       {{"M", 128}, {"K", 64}}},
  };
}

}  // namespace trip_fa6_test

namespace tf6 = trip_fa6_test;

TEST(TripFa6, LastKIterationWithALastTileOfItsOwnIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf6::kLastTileLastIteration, {{"M", 192}, {"K", 192}}, tf6::lastTileAttacks());
}

TEST(TripFa6, TileCountReadInALastKIterationIsNotProved) {
  cake::testing::attacks::attack(tf6::lastIterationKernel(), {{"M", 192}, {"K", 192}},
                                 tf6::tileCountNearTheEndAttacks());
}

// A read of the tile count in a first K iteration's own branch that the grid
// (every tile from ring index 0) never takes.
TEST(TripFa6, TileCountReadInAFirstKIterationIsNotProved) {
  const std::string wait = "                lm.wait(full, iter=it)\n";
  cake::testing::attacks::attack(
      cake::testing::kRingEnd, {{"M", 192}, {"K", 192}},
      {{{{wait, wait + "                if k == 0 and it > 0:\n                    if t + 1 == tiles:\n              "
                       "          lm.wait(full, iter=it + 4)\n"}},
        "the last tile's first K iteration waits for a load four ahead (never comes)",
        {{"M", 128}, {"K", 64}}},
       {{{"            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n                lm.wait(full, "
          "iter=it)\n",
          "            if t * k_tiles > 0:\n                if t + 1 == tiles:\n                    lm.wait(full, "
          "iter=t * k_tiles + 4)\n            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + "
          "k\n                lm.wait(full, iter=it)\n"}},
        "the last tile's part before its K loop waits for a load four ahead (never comes)",
        {{"M", 128}, {"K", 64}}}});
}
