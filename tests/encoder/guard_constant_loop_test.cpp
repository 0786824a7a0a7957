// Loop guards that read the variable of a constant inner loop (helper
// fphunt4, session 31; docs/known-limits.md "The covering values combine
// the guards' outcomes only once each"): DeepGEMM's persistent FP8 GEMM
// runs its K loop in blocks of all the ring's stages, `for k_iter ...: for s
// in stages:`, and the last block's stages past K carry no data
// (`if k_iter * kNumStages + s < num_k_blocks:` load, else a plain arrive).
// The guard reads the symbolic loop's variable and the constant loop's;
// before, the covering values could not place it (`is not an affine
// comparison of the loop variable the values can place`) and the correct
// kernel was *unknown* (exit 2). Now it is placed once per value of the
// constant loop's variable.
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace guard_constant_loop_test {

// A 2-stage ring whose K blocks of 64 columns are issued two per k_iter;
// the second stage of the last k_iter is empty when cdiv(K, 64) is odd.
const std::string kStagedRing = R"(
@cake.schedule(target="sm_90a")
def staged(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc = lm.regs(shape=(64, 128), dtype=lm.f32)
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    k_blocks = lm.cdiv(K, 64)
    n_iters  = lm.cdiv(K, 128)
    with producer:
        for k in lm.range(0, n_iters):
            for s in lm.range(0, 2):
                g = 2 * k + s
                lm.wait(empty, iter=g - 2)
                if 2 * k + s < k_blocks:
                    smem_a.tma_load(A, coords=(0, g * 64), iter=g, barrier=full)
                    smem_b.tma_load(B, coords=(0, g * 64), iter=g, barrier=full)
                    lm.expect_tx(full, 24576, iter=g)
                else:
                    lm.arrive(full, iter=g)
    with consumer:
        lm.fill(acc, 0.0)
        for k in lm.range(0, n_iters):
            for s in lm.range(0, 2):
                g = 2 * k + s
                lm.wait(full, iter=g)
                if CONSUMER_GUARD:
                    lm.mma(acc, smem_a[g], smem_b[g])
                    lm.mma_commit()
                    lm.mma_wait(pending=0)
                RELEASE
        lm.copy(C, acc, coords=(0, 0))
)";

std::string stagedRing(const std::string& guard, const std::string& release) {
  return edited(kStagedRing, {{"CONSUMER_GUARD", guard}, {"RELEASE", release}});
}

const std::string kRelease = "lm.arrive(empty, iter=g)";

TEST(GuardConstantLoop, TailStagesAreDecided) {
  const checks::CheckResult r = checkText(stagedRing("2 * k + s < k_blocks", kRelease));
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(r.undecided()) << "the tail-stage guard is not placed\n" << describe(r);
}

// The consumer multiplies the empty tail stage too (its guard one stage
// off): the slot holds the previous lap's tile, or nothing.
TEST(GuardConstantLoop, ConsumerGuardOneStageOffIsReported) {
  expectPair("consumer guard `2 * k + s <= k_blocks`", stagedRing("2 * k + s <= k_blocks", kRelease), "", "");
}

// The producer forgets the plain arrive of an empty tail stage: the
// consumer's wait on it never passes (the phase gets no arrival:
// sync.arrival-underflow), but only when cdiv(K, 64) is odd -
// a K the covering values must place.
TEST(GuardConstantLoop, TailStageWithoutArrivalIsReported) {
  expectPair("no arrival on the empty tail stage",
             edited(stagedRing("2 * k + s < k_blocks", kRelease),
                    {{"                else:\n                    lm.arrive(full, iter=g)\n", ""}}),
             "sync.arrival-underflow", "");
}

}  // namespace guard_constant_loop_test
