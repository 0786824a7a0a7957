// fifth48's reduced reproducer (docs/z3.md "MMA commits left out near a
// tile's end"): an sm_100 GEMM whose MMA warp releases each ring slot by a
// commit on `empty` except in a tile's last K iteration, whose slot it
// releases after the K loop by a commit just before the accumulator's.
// Shared by trip_commit_tail_test.cpp and trip_tmem_tail_test.cpp (which
// edit it).
#pragma once

namespace cake::testing {

inline const char* kCommitTailGemm = R"(@cake.schedule(target="sm_100a")
def commit_tail(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32, n_tiles: LM.i32):
    lm.assume(K > 0)
    lm.assume(n_tiles > 0)
    pool     = lm.smem(65536)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b   = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_q    = lm.regs(shape=(32, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    k_tiles = lm.cdiv(K, 64)

    with load:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(t * 128, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(acc_empty, iter=t - 1)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(tmem_acc, smem_a[it], smem_b[it], init=(k == 0))
                if k + 1 < k_tiles:
                    lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=empty, iter=t * k_tiles + k_tiles - 1)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        for t in lm.range(0, n_tiles):
            lm.wait(acc_full, iter=t)
            lm.tmem_load(acc_q, tmem_acc[0:32, :])
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=t)
)";

}  // namespace cake::testing
