// Two steps toward the TLX persistent split-K GEMM's proof (helper tlx46,
// session 46; docs/z3.md "A tile loop from the block index by a constant
// step, counted in trips" and "Tiles a guard skips in every role, each tile
// its own K count"):
//  * `for tile in lm.range(lm.block_idx(0), num_tiles, 4)` (TLX's `tile_id
//    += NUM_SMS`, a constant) is counted in trips (encoder/trip_proof.cpp
//    blockLoopsInTrips): `tile` read as `lm.block_idx(0) + 4 * n`;
//  * a split-K tile loop whose tiles a guard `k1 > k0` skips in every role,
//    the K loops under it bounded by `k1 - k0`, is proved with each tile its
//    own K count (skippedTiles, proveSkippedTiles).
// Broken twins stay found and unproved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "tlx_gemm.h"

using namespace cake;
// (declarations, not directives: a unity build puts later test files in this
// one's scope)
using cake::testing::replace;
using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::expectFoundNotProved;

namespace skipped_tiles46_test {

// The roles and barriers both forms share (tlx_gemm.h).
const std::string& kHead = cake::testing::tlx::kHead;

// The MMA role's tile: one TMEM buffer taken, `count` K iterations over
// the 1-slot ring, the buffer handed to the epilogue; each line indented by
// `indent` spaces.
std::string mmaTile(int indent, const std::string& count) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  return pad + "lm.wait(tmem_empty, stage=0)\n" + pad + "for kk in lm.range(0, " + count + "):\n" + pad +
         "    lm.wait(full, stage=0)\n" + pad + "    lm.mma(acc, smem_a[0], smem_b[0], init=(kk == 0))\n" + pad +
         "    lm.mma_commit(barrier=empty, stage=0)\n" + pad + "lm.mma_commit(barrier=tmem_full, stage=0)\n";
}

// A persistent GEMM whose CTA walks tiles from its block index by the
// constant 4.
const std::string kBlockStep =
    R"(@cake.schedule(target="sm_100a")
def tiles_from_block_by_constant_step(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
)" + kHead + R"(    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    with producer:
        for tile in lm.range(lm.block_idx(0), num_tiles, 4):
            for kk in lm.range(0, k_tiles):
                lm.wait(empty, stage=0)
                smem_a.tma_load(A, coords=((tile % tiles_m) * 128, kk * 64), stage=0, barrier=full)
                smem_b.tma_load(B, coords=((tile // tiles_m) * 128, kk * 64), stage=0, barrier=full)
    with mma:
        lm.arrive(empty, stage=0)
        for tile in lm.range(lm.block_idx(0), num_tiles, 4):
)" + mmaTile(12, "k_tiles") + R"(    with epi:
        lm.arrive(tmem_empty, stage=0)
        for tile in lm.range(lm.block_idx(0), num_tiles, 4):
            lm.wait(tmem_full, stage=0)
            lm.tmem_load(res, acc)
            lm.tmem_load_wait()
            lm.arrive(tmem_empty, stage=0)
            lm.copy(W, res, coords=((tile % tiles_m) * 128, (tile // tiles_m) * 128))
)";

// A split-K walk over S splits of kp K tiles each; a split past the K
// tiles is empty, and every role skips it (`k1 > k0`).
const std::string kSplitK =
    R"(@cake.schedule(target="sm_100a")
def split_k_tiles_skipped_in_every_role(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, K: LM.i32, S: LM.i32):
    lm.assume(K > 0)
    lm.assume(S >= 1)
)" + kHead + R"(    kp = lm.cdiv(k_tiles, S)
    with producer:
        for split in lm.range(0, S):
            k0 = split * kp
            k1 = min(k0 + kp, k_tiles)
            if k1 > k0:
                for kk in lm.range(0, k1 - k0):
                    lm.wait(empty, stage=0)
                    smem_a.tma_load(A, coords=(0, (k0 + kk) * 64), stage=0, barrier=full)
                    smem_b.tma_load(B, coords=(0, (k0 + kk) * 64), stage=0, barrier=full)
    with mma:
        lm.arrive(empty, stage=0)
        for split in lm.range(0, S):
            k0 = split * kp
            k1 = min(k0 + kp, k_tiles)
            if k1 > k0:
)" + mmaTile(16, "k1 - k0") + R"(    with epi:
        lm.arrive(tmem_empty, stage=0)
        for split in lm.range(0, S):
            k0 = split * kp
            if min(k0 + kp, k_tiles) > k0:
                lm.wait(tmem_full, stage=0)
                lm.tmem_load(res, acc)
                lm.tmem_load_wait()
                lm.arrive(tmem_empty, stage=0)
                lm.copy(W, res, coords=(split * 128, 0))
)";

const std::string kMmaTiles =
    "        lm.arrive(empty, stage=0)\n        for tile in lm.range(lm.block_idx(0), num_tiles, 4):\n";
const std::string kMmaGuard = "        lm.arrive(empty, stage=0)\n        for split in lm.range(0, S):\n"
                              "            k0 = split * kp\n            k1 = min(k0 + kp, k_tiles)\n"
                              "            if k1 > k0:\n";
const std::string kEpiGuard = "            if min(k0 + kp, k_tiles) > k0:\n";

}  // namespace skipped_tiles46_test

namespace st46 = skipped_tiles46_test;

// Proved (main: *checked*, "the schedule reads lm.block_idx(0) outside the
// loop bounds"); each role's tile loop counted in trips.
TEST(BlockTrips46, ATileLoopFromTheBlockIndexByAConstantStepIsProved) {
  expectCheckedAndProved(st46::kBlockStep, "tiles from the block index by 4");
}

// Roles that walk other tiles than their peers: found, not proved.
// The long form (about 3 s of CPU each: the copy's proof runs until its
// work budget): roles that walk other tiles than their peers, found and
// not proved.
TEST(BlockTrips46, SlowRolesWalkingOtherTilesAreFoundAndNotProved) {
  expectFoundNotProved(replace(st46::kBlockStep, "lm.range(lm.block_idx(0), num_tiles, 4)",
                               "lm.range(lm.block_idx(0), num_tiles, 3)"),
                       "sync.arrival-underflow", "the producer's step 3");
  expectFoundNotProved(replace(st46::kBlockStep, st46::kMmaTiles,
                               replace(st46::kMmaTiles, "lm.block_idx(0),", "lm.block_idx(0) + 4,")),
                       "sync.arrival-underflow", "the MMA one tile late");
}

// Found, not proved: the TMEM buffer never released (the shape is taken:
// the copy's proof meets the hang).
TEST(BlockTrips46, ABufferNeverReleasedIsFoundAndNotProved) {
  expectFoundNotProved(replace(st46::kBlockStep, "            lm.arrive(tmem_empty, stage=0)\n            lm.copy", "            lm.copy"),
                       "sync.arrival-underflow", "the TMEM buffer never released");
}

// Proved (main: *checked*, "the symbolic loops have different bounds"):
// every role skips the empty splits, each kept split its own K count.
TEST(SkippedTiles46, EmptySplitsSkippedInEveryRoleAreProved) {
  expectCheckedAndProved(st46::kSplitK, "empty splits skipped in every role");
}

// Found, not proved: the epilogue waits for an empty split the MMA skipped
// (its guard dropped, or `>=`), the MMA skips splits of one K tile, the
// producer loads one K tile too many, the MMA never releases the ring (the
// shape is taken: the copy's proof meets the hang).
TEST(SkippedTiles46, GuardsThatDisagreeOrAHangAreFoundAndNotProved) {
  const std::string& s = st46::kSplitK;
  expectFoundNotProved(
      replace(replace(replace(replace(replace(replace(s, st46::kEpiGuard, ""), "                lm.wait(tmem_full",
                                                              "            lm.wait(tmem_full"),
                                              "                lm.tmem_load(res", "            lm.tmem_load(res"),
                              "                lm.tmem_load_wait()", "            lm.tmem_load_wait()"),
                      "                lm.arrive(tmem_empty, stage=0)\n                lm.copy",
                      "            lm.arrive(tmem_empty, stage=0)\n                lm.copy"),
              "                lm.copy(W", "            lm.copy(W"),
      "sync.arrival-underflow", "the epilogue's guard dropped");
  expectFoundNotProved(replace(s, st46::kMmaGuard, replace(st46::kMmaGuard, "if k1 > k0:", "if k1 > k0 + 1:")),
                       "sync.arrival-underflow", "the MMA skips splits of one K tile");
  expectFoundNotProved(replace(s, "for kk in lm.range(0, k1 - k0):\n                    lm.wait(empty",
                               "for kk in lm.range(0, k1 - k0 + 1):\n                    lm.wait(empty"),
                       "sync.arrival-underflow", "the producer loads one K tile more");
  expectFoundNotProved(replace(s, "                    lm.mma_commit(barrier=empty, stage=0)\n", ""),
                       "sync.arrival-underflow", "the ring never released");
}
