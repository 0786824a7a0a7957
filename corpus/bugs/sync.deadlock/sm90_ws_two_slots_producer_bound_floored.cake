# BUG (sync.deadlock): the two-slots-per-iteration mainloop of
# corpus/gemm/sm90_ws_two_slots_per_iteration.cake with its two loop bounds
# written apart and the producer's floored: the TMA warp loads
# 2 * (K // 128) blocks of 64 while the consumer warpgroup takes two per
# iteration for (K + 127) // 128 iterations.  Where K is not a multiple of
# 128 the producer stops one pair short (K = 129: 2 blocks loaded, 4
# waited for): the consumer waits for block 2 forever (for K < 128 the
# producer loads nothing).
# Fix: sm90_ws_two_slots_producer_bound_floored_fixed.cake (the producer's
# bound a ceiling, spelled as lm.cdiv).
# expect: sync.deadlock
# may-also: sync.arrival-underflow
@cake.schedule(target="sm_90a")
def gemm_sm90_two_slots_producer_bound_floored(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                      M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(90112)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 128), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    wg   = lm.role(warps=[4, 5, 6, 7])

    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, 2 * (K // 128)):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with wg:
        for j in lm.range(0, (K + 127) // 128):
            lm.wait(full, iter=2 * j)
            lm.mma(acc, smem_a[2 * j], smem_b[2 * j], init=(j == 0))
            lm.wait(full, iter=2 * j + 1)
            lm.mma(acc, smem_a[2 * j + 1], smem_b[2 * j + 1])
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=2 * j)
            lm.arrive(empty, iter=2 * j + 1)
        lm.copy(smem_c, acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk))
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
