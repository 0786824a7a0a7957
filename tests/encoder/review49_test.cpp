// Review49 (session 49): a proof's violation at a trip count that only an
// interior parameter value gives. The count `max(2 * hit - 1555, 1555 - 2 *
// hit) + 1` is least (2) at hit = 777 alone; the bounded check ran hit in
// {0, 1}, the proof met sync.async-at-exit at trip count 2, and the
// one-parameter search (find(): a count that grows with its parameter)
// placed no binding there, so the violation was taken for one "no parameter
// values give" and the broken schedule exited 0 *checked*. bindingFor now
// asks Z3 over the parameters the count reads (checks/model_check.cpp).

#include <gtest/gtest.h>

#include <string>

#include "model_check_run.h"

namespace review49_test {

const std::string kInteriorLeast = R"(@cake.schedule(target="sm_80")
def least_trip_interior(lm, A: LM.gmem, C: LM.gmem, hit: LM.i32):
    lm.assume(hit >= 0)
    lm.assume(hit <= 2000)
    pool   = lm.smem(24576)
    smem_a = pool.view(offset=0, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    T = max(2 * hit - 1555, 1555 - 2 * hit) + 1
    with wg:
        smem_a.cp_async(A, coords=(0, 0), iter=0)
        lm.cp_async_commit()
        smem_a.cp_async(A, coords=(0, 32), iter=1)
        lm.cp_async_commit()
        smem_a.cp_async(A, coords=(0, 64), iter=2)
        lm.cp_async_commit()
        lm.fill(acc, 0.0)
        for k in lm.range(0, T):
            lm.cp_async_wait(pending=2)
            lm.mma(acc, smem_a[k], smem_a[k], init=False)
            if k + 3 < T:
                smem_a.cp_async(A, coords=(0, (k + 3) * 32), iter=k + 3)
            lm.cp_async_commit()
        lm.copy(out, acc)
        lm.copy(C, out, coords=(0, 0))
)";

TEST(Review49, AViolationAtACountOnlyAnInteriorValueGivesIsFound) {
  const cake::testing::CheckRun broken = cake::testing::runModelCheck(kInteriorLeast, 3000);
  const auto* f = broken.finding("sync.async-at-exit");
  ASSERT_NE(f, nullptr) << broken.detail();
  EXPECT_NE(f->message.find("777"), std::string::npos) << f->message;
  // the fix: every group retired before the epilogue
  const std::string fixed = cake::testing::replace(kInteriorLeast, "        lm.copy(out, acc)\n",
                                                   "        lm.cp_async_wait(pending=0)\n        lm.copy(out, acc)\n");
  ASSERT_NE(fixed, kInteriorLeast);
  const cake::testing::CheckRun clean = cake::testing::runModelCheck(fixed, 3000);
  EXPECT_TRUE(clean.passes()) << clean.detail();
}

}  // namespace review49_test
