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

using namespace cake;
using namespace cake::testing::pairs;

namespace inner_trip_goal_test {

// CONSUMER is the body of the consumer's tile loop.
const std::string kSplitK = R"(
@cake.schedule(target="sm_90a")
def split_k(lm, A: LM.tma2d, M: LM.i32, K: LM.i32, S: LM.i32):
    lm.assume(M >= 1)
    lm.assume(K >= 1)
    lm.assume(S >= 1)
    lm.assume(S <= 4)
    pool  = lm.smem(16384)
    a     = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    prod  = lm.role(warps=[0])
    cons  = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=1, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=1, prod=[cons], cons=[prod], init_count=1)
    kp  = lm.cdiv(K, S)
    nmn = lm.cdiv(M, 128)
    with prod:
        for tile in lm.range(lm.block_idx(0), nmn * S, 4):
            for k in lm.range(0, min(tile // nmn * kp + kp, K) - tile // nmn * kp):
                lm.wait(empty, stage=0)
                a.tma_load(A, coords=(0, (tile // nmn * kp + k) * 64), stage=0, barrier=full)
    with cons:
        lm.arrive(empty, stage=0)
        for tile in lm.range(lm.block_idx(0), nmn * S, 4):
CONSUMER
)";

// The first K step peeled out of the loop, as TLX's MMA task does.
const std::string kPeeled = R"(            lm.wait(full, stage=0)
            lm.mma(acc, a[0], a[0], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=0)
            for k in lm.range(1, min(tile // nmn * kp + kp, K) - tile // nmn * kp):
                lm.wait(full, stage=0)
                lm.mma(acc, a[0], a[0], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=0))";

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
  std::string out = "            if min(tile // nmn * kp + kp, K) CMP tile // nmn * kp:\n    ";
  for (char c : body) out += c == '\n' ? std::string("\n    ") : std::string(1, c);
  return out;
}

// `>=` lets in the empty split that starts at K itself (K = 1, S = 2:
// split 1 has k0 = 1): the same monotone guard, placed, and its hang found.
TEST(InnerTripGoal, EmptySplitGuardOnTheTileIsPlaced) {
  const std::string guarded = edited(kSplitK, {{"CONSUMER", underTileGuard(kPeeled)}});
  expectPair("the empty split let in by `>=`", edited(guarded, {{"CMP", ">="}}), "sync.arrival-underflow",
             edited(guarded, {{"CMP", ">"}}));
}

}  // namespace inner_trip_goal_test
