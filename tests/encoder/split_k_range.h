// A split-K CTA's range of k-blocks (a 4-slot ring between a TMA producer
// and two consumer warpgroups, each CTA over k-blocks [k0, k1) with k0 =
// lm.block_idx(1) * kpc and ring index k - k0): shared by
// trip_prefetch_tail_test.cpp (the covering values reach two laps) and
// trip_from_zero_test.cpp (the loop counted from 0; its start placed).
#pragma once

#include <string>

#include "test_util.h"

namespace cake::testing {

inline constexpr const char* kSplitKRange = R"(@cake.schedule(target="sm_90a")
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

// kSplitKRange with the consumers' wait behind `cond` (a wait skipped where
// it is false: sound41_test.cpp, cover42_test.cpp).
inline std::string splitKWaitIf(const std::string& cond) {
  return replace(kSplitKRange, "            lm.wait(full, iter=k - k0)\n",
                 "            if " + cond + ":\n                lm.wait(full, iter=k - k0)\n");
}

}  // namespace cake::testing
