// Two MMA warps that split a persistent tile's K iterations
// (corpus/gemm/sm100_persistent_two_mma_warps_k_split.cake: mma_lo runs
// k-blocks [0, kh), mma_hi [kh, k_tiles) of every tile, both over the one
// smem ring, ordered on the shared TMEM accumulator by k_half / hi_done).
// The proof does not cover a K loop over a sub-range of the tile's K
// iterations yet (docs/z3.md "K loops over a sub-range of the tile's K
// iterations", session 34, helper ksplit: the route and what stops it).
// Whatever argument comes to prove the file must not prove these broken
// forms: each is a real bug of the split, found by the bounded check on a
// small grid of sizes, and each test fails if it gets proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_k_split_test {

std::string kSplitText() {
  return cake::testing::corpusText("corpus/gemm/sm100_persistent_two_mma_warps_k_split.cake");
}

std::string kSplitEdit(const std::string& from, const std::string& to) {
  return cake::testing::replace(kSplitText(), from, to);
}

// One CTA over 1..3 tiles (M) of 1, 2 or 4 k-blocks (K): odd and even
// splits, the second half empty at one k-block.
bool kSplitBrokenOnGrid(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  return cake::testing::brokenOnGrid(s, {{"N", {129}}, {"M", {1, 129, 257}}, {"K", {1, 65, 193, 257}}});
}

// mma_hi's K loop header and ring index
const std::string kHiLoop = "            for k in lm.range(kh, k_tiles):\n                it = t * k_tiles + k\n";

}  // namespace trip_k_split_test

namespace tks = trip_k_split_test;

// The grid is one the correct schedule passes (so a broken form found on
// it is found for its bug).
TEST(TripKSplit, TheCorrectSplitIsCleanOnTheGrid) {
  EXPECT_FALSE(tks::kSplitBrokenOnGrid(tks::kSplitText()));
}

TEST(TripKSplit, BrokenSplitsAreFoundAndNotProved) {
  struct Broken {
    std::string what, text;
  };
  const Broken broken[] = {
      // the sub-ranges overlap: k-block kh - 1 is consumed (and released) twice
      {"overlapping sub-ranges", tks::kSplitEdit("lm.range(kh, k_tiles)", "lm.range(kh - 1, k_tiles)")},
      // a gap: k-block kh is loaded and never consumed nor released
      {"a gap between the sub-ranges", tks::kSplitEdit("lm.range(kh, k_tiles)", "lm.range(kh + 1, k_tiles)")},
      // the second warp's ring index restarts at the tile's first slot
      // instead of going on from the split point
      {"the second warp starts at the tile's ring start",
       tks::kSplitEdit(tks::kHiLoop, "            for k in lm.range(kh, k_tiles):\n"
                                     "                it = t * k_tiles + k - kh\n")},
      // the second warp ordered after the previous tile's first half only:
      // both warps' MMAs on one accumulator stage unordered
      {"the second warp waits the previous tile's first half",
       tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t - 1)")},
      // the hand-off's wait a lap off: its parity matches at once
      {"the hand-off waited with the wrong parity",
       tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t + 2)")},
      // the second half's full-barrier wait a lap ahead (wrong parity: it
      // passes before the load landed)
      {"the second half's ring wait with the wrong parity",
       tks::kSplitEdit(tks::kHiLoop + "                lm.wait(full, iter=it)\n",
                       tks::kHiLoop + "                lm.wait(full, iter=it + 3)\n")},
      // the corpus twins
      {"the second warp ordered by the ring only (corpus)",
       cake::testing::corpusText("corpus/bugs/sync.race/sm100_k_split_second_warp_unordered.cake")},
  };
  for (const Broken& b : broken) {
    EXPECT_NE(b.text, tks::kSplitText()) << b.what;
    EXPECT_TRUE(tks::kSplitBrokenOnGrid(b.text)) << b.what;
    auto r = cake::testing::proveText(b.text, 129);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
}
