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
#include "skipped_tiles_kernels.h"

using namespace cake;
// (declarations, not directives: a unity build puts later test files in this
// one's scope)
using cake::testing::replace;
using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::expectFoundNotProved;

namespace skipped_tiles46_test {

using namespace skipped_tiles_kernels;  // (inside this namespace: the unity build)

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
