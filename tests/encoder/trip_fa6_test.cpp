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
#include "test_util.h"

using namespace cake;

namespace trip_fa6_test {

using cake::testing::replace;

// The one-slot Q hand-off of docs/z3.md "The tile count inside the tile
// loop" with a last K iteration of its own: the wgmma group of the tile's
// last iteration, which reads Q, retires before the hand-off.
const std::string kLastTileLastIteration = R"(@cake.schedule(target="sm_90a")
def q_handoff_last_k(lm, Q: LM.tma2d, A: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    pool   = lm.smem(32768)
    smem_q = pool.view(offset=0,    shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_a = pool.view(offset=8192, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    pipe    = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)
    full    = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    q_empty = lm.named_barrier(roles=[producer, consumer])
    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
            if t > 0:
                lm.sync(q_empty)
            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, tiles):
            lm.wait(q_full, iter=t)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_q[t], smem_a[it], init=(k == 0))
                lm.mma_commit()
                if k + 1 < k_tiles:
                    lm.mma_wait(pending=1)
                else:
                    lm.mma_wait(pending=0)
                if it > 0:
                    lm.arrive(empty, iter=it - 1)
            if t + 1 < tiles:
                lm.bar_arrive(q_empty)
)";

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

// The kernel of docs/z3.md "The last K iteration" (kRingEnd's consumer with
// one group in flight except in a tile's last K iteration), which reads the
// tile count nowhere else.
std::string lastIterationKernel() {
  return replace(
      cake::testing::kRingEnd,
      "                lm.mma_wait(pending=1)\n                if k > 0:\n                    lm.arrive(empty, iter=it "
      "- 1)\n            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n",
      "                if k + 1 < k_tiles:\n                    lm.mma_wait(pending=1)\n                else:\n           "
      "         lm.mma_wait(pending=0)\n                if it > 0:\n                    lm.arrive(empty, iter=it - "
      "1)\n");
}

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
