// Also (helper fphunt2, the same session): a split-K loop over the range
// [k0, k1), k1 = min(k0 + kpc, k_tiles), whose trip count reads two
// parameters. The covering values moved one parameter at a time and so
// checked the trip count 1 only ("checked: K in {1}, kpc in {1}"); a broken
// ring was "checked" clean. Its trip-count targets are now solved for with
// both parameters free (checks/model_check.cpp tiedBinding).
//
// A prefetch loop whose whole body is guarded (`if k + S < K:`), as in a
// software-pipelined producer: a prologue loads stages 0..S-1, the K loop
// loads k + S only while k + S < K, so its last S iterations run no
// operation. Before, lap induction refused every such loop ("iteration 20
// of prod's symbolic loop has no operation (a loop head would be
// ambiguous)", encoder/trip_proof.cpp shapeOf); now a loop's trailing
// empty iterations end it at its last operation and the steady offset is
// found from the systems (docs/z3.md "A prefetch loop whose last
// iterations are empty"). Its broken forms are still found by the bounded
// check and never proved; an empty iteration followed by one that runs is
// still refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "checks/model_check.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_prefetch_tail_test {

const char* kPrefetchTail = R"(@cake.schedule(target="sm_90a")
def prefetch_tail(lm, A: LM.tma2d, K: LM.i32):
    lm.assume(K >= 4)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    cons = lm.role(warps=[0, 1, 2, 3])
    prod = lm.role(warps=[4])
    inp = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[prod], cons=[cons], init_count=1, pipeline=inp)
    empty = lm.barrier(prod=[cons], cons=[prod], init_count=1, pipeline=inp)
    with prod:
        for li in lm.range(0, 4):
            lm.wait(empty, iter=li - 4)
            smem_a.tma_load(A, coords=(0, 64 * li), iter=li, barrier=full)
        for it in lm.range(0, K):
            if it + 4 < K:
                lm.wait(empty, iter=it)
                smem_a.tma_load(A, coords=(0, 64 * (it + 4)), iter=it + 4, barrier=full)
    with cons:
        for it in lm.range(0, K):
            lm.wait(full, iter=it)
            lm.mma(acc, smem_a[it], smem_a[it], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=it)
)";

std::string edit(const std::string& from, const std::string& to) {
  return cake::testing::replace(kPrefetchTail, from, to);
}

bool violatedAtK(const std::string& text, int64_t K) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"K", K}});
}

}  // namespace trip_prefetch_tail_test

namespace tpt = trip_prefetch_tail_test;

TEST(TripPrefetchTail, GuardedPrefetchLoopIsProved) {
  EXPECT_FALSE(tpt::violatedAtK(tpt::kPrefetchTail, 9));
  auto r = cake::testing::proveText(tpt::kPrefetchTail, 4);  // K = 4: the least trip count the assumption allows
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

TEST(TripPrefetchTail, BrokenPrefetchLoopsAreNotProved) {
  const std::string broken[] = {
      // the refill waits one slot too early: it overwrites a stage still read
      tpt::edit("lm.wait(empty, iter=it)", "lm.wait(empty, iter=it - 1)"),
      // one load too many: the last one is never waited for
      tpt::edit("if it + 4 < K:", "if it + 3 < K:"),
      // one load too few: the consumer waits forever for the last stage
      tpt::edit("if it + 4 < K:", "if it + 5 < K:"),
      // the consumer releases the stage before its MMA retired
      tpt::edit("            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=it)",
           "            lm.arrive(empty, iter=it)\n            lm.mma_wait(pending=0)"),
  };
  for (const std::string& text : broken) {
    EXPECT_TRUE(tpt::violatedAtK(text, 8) || tpt::violatedAtK(text, 4)) << text;
    auto r = cake::testing::proveText(text, 4);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << text;
  }
}

TEST(TripPrefetchTail, EmptyIterationsBeforeLoadsAreStillRefused) {
  // the loads stop at tile 16 for every K: broken for K >= 21 (the consumer
  // waits for tile 16 forever); the empty iterations 12.. are not a tail of
  // the window's loop for every trip count, and the proof must not say proved
  const std::string text = tpt::edit("if it + 4 < K:", "if it + 4 < K and it < 12:");
  EXPECT_TRUE(tpt::violatedAtK(text, 24));
  auto r = cake::testing::proveText(text, 4);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.detail;
}

namespace trip_prefetch_tail_test {

const char* kSplitKRange = R"(@cake.schedule(target="sm_90a")
def splitk_range(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, K: LM.i32, kpc: LM.i32):
    lm.assume(K > 0)
    lm.assume(kpc > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    producer  = lm.role(warps=[0, 1, 2, 3])
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)
    k_tiles = lm.cdiv(K, 64)
    k0 = lm.block_idx(1) * kpc
    k1 = min(k0 + kpc, k_tiles)
    with producer:
        for k in lm.range(k0, k1):
            lm.wait(empty, iter=k - k0 - 4)
            smem_a.tma_load(A, coords=(0, k * 64), iter=k - k0, barrier=full)
            smem_b.tma_load(B, coords=(0, k * 64), iter=k - k0, barrier=full)
    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(k0, k1):
            lm.wait(full, iter=k - k0)
            lm.mma(acc, smem_a[k - k0][m0:m0 + 64, :], smem_b[k - k0], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k - k0)
        lm.copy(W, acc, coords=(lm.block_idx(1) * 128 + m0, 0))
)";

}  // namespace trip_prefetch_tail_test

TEST(TripPrefetchTail, SplitKRangeCoveringValuesReachTwoLaps) {
  auto mod = cake::testing::compile(tpt::kSplitKRange);
  ASSERT_EQ(mod.schedules.size(), 1u);
  std::set<int64_t> trips;
  for (const auto& b : checks::coveringBindings(mod.schedules[0])) {
    const int64_t k_tiles = (b.params.at(3) + 63) / 64, kpc = b.params.at(4);
    const int64_t k0 = b.block_idx[1] * kpc;
    trips.insert(std::max<int64_t>(std::min(k0 + kpc, k_tiles) - k0, 0));
  }
  EXPECT_TRUE(trips.count(1));
  EXPECT_TRUE(trips.count(5)) << "a lap past the 4-stage ring";
  EXPECT_TRUE(trips.count(9)) << "two laps past it";
  // the refill one slot early is met by the bounded check
  const std::string broken =
      cake::testing::replace(tpt::kSplitKRange, "iter=k - k0 - 4)", "iter=k - k0 - 5)");
  EXPECT_TRUE(cake::testing::violatedAt(cake::testing::compile(broken).schedules.at(0), {{"K", 64 * 9}, {"kpc", 9}}));
}
