// Two persistent test kernels shared by the tests of the tile count and of
// the last K iteration (trip_gaps_test.cpp, trip_proof_test.cpp,
// trip_left_out_wait_test.cpp, trip_fa6_test.cpp).
#pragma once

#include <string>

#include "test_util.h"

namespace cake::testing {

// A persistent kernel whose Q tile is reloaded per tile into one slot: the
// producer bar.sync's q_empty before every tile but the first, the consumer
// bar.arrive's it after every tile's K loop but the last's (FA3's
// QueryEmpty, corpus/attention/sm90_fa3_persistent.cake; docs/z3.md "The
// tile count inside the tile loop"; trip_gaps_test.cpp, trip_fa6_test.cpp).
inline constexpr const char* kQueryEmpty = R"(@cake.schedule(target="sm_90a")
def q_empty_handoff(lm, Q: LM.tma2d, A: LM.tma2d, M: LM.i32, K: LM.i32):
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
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            if t + 1 < tiles:
                lm.bar_arrive(q_empty)
)";

// kRingEnd whose consumer keeps one wgmma group in flight in every K
// iteration but its tile's last, and releases the slot before (docs/z3.md
// "The last K iteration"; trip_proof_test.cpp, trip_left_out_wait_test.cpp,
// trip_fa6_test.cpp).
inline std::string ringEndLastIteration() {
  return replace(
      kRingEnd,
      "                lm.mma_wait(pending=1)\n                if k > 0:\n                    lm.arrive(empty, iter=it "
      "- 1)\n            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n",
      "                if k + 1 < k_tiles:\n                    lm.mma_wait(pending=1)\n                else:\n           "
      "         lm.mma_wait(pending=0)\n                if it > 0:\n                    lm.arrive(empty, iter=it - "
      "1)\n");
}

}  // namespace cake::testing
