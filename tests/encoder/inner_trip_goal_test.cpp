// A K loop whose trip count reads the tile loop's variable (helper
// hunt45a, session 45; facebookexperimental/triton PR #1141, the TLX
// persistent split-K GEMM): tile t of a persistent loop is split t // n of
// the K range, and the last split is empty when cdiv(K, S) * (S - 1) >= K.
// The K loop's trip-count goal reads the tile variable, which no binding
// gives a value, so the covering values never ran a CTA whose tile is an
// empty split: the consumer's peeled first wait, which hangs there, exited
// 0 *checked*. The goal is now placed at the tile loop's first and second
// iterations (checks/model_check.cpp, BindingSearch::placeInnerTrips).
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "split_k_kernel.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace inner_trip_goal_test {

using cake::testing::split_k::kPeeled;
using cake::testing::split_k::kSplitK;

// Every K step in the loop: an empty split runs none.
const std::string kInLoop = R"(            for k in lm.range(0, min(tile // nmn * kp + kp, K) - tile // nmn * kp):
                lm.wait(full, stage=0)
                lm.mma(acc, a[0], a[0], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=0))";

TEST(InnerTripGoal, EmptySplitUnderAPeeledWaitIsReported) {
  expectPair("a peeled first K wait on an empty split", edited(kSplitK, {{"CONSUMER", kPeeled}}),
             "sync.arrival-underflow", edited(kSplitK, {{"CONSUMER", kInLoop}}));
}

// The fix of PR #1141: the tile skipped where its split is empty, the
// peeled wait under `k_tile_end > k_tile_start` (CMP: the comparison).
// The guard reads the tile variable through a floor division and a `min`,
// no affine comparison: the covering values left its flip unplaced and
// the fixed form was *unknown* (helper tlx45, session 45). Its truth only
// falls as the tile grows (one flip per CTA), and its flip is now placed
// as an affine one's (checks/model_check.cpp, GoalCollector::monotoneIn).
std::string underTileGuard(const std::string& body) {
  return cake::testing::split_k::underGuard(body, "min(tile // nmn * kp + kp, K) CMP tile // nmn * kp");
}

// `>=` lets in the empty split that starts at K itself (K = 1, S = 2:
// split 1 has k0 = 1): the same monotone guard, placed, and its hang found.
TEST(InnerTripGoal, EmptySplitGuardOnTheTileIsPlaced) {
  const std::string guarded = edited(kSplitK, {{"CONSUMER", underTileGuard(kPeeled)}});
  expectPair("the empty split let in by `>=`", edited(guarded, {{"CMP", ">="}}), "sync.arrival-underflow",
             edited(guarded, {{"CMP", ">"}}));
}

}  // namespace inner_trip_goal_test
