# BUG (sync.race): the DeepGEMM/CUTLASS "keep one wgmma in flight" mainloop
# done wrong.  mma_wait(pending=1) retires every group except the newest -
# the one just issued on slot k%4 - and the consumer then releases slot k%4
# anyway.  The producer may refill it (TMA write) while that wgmma is still
# reading it.
# Models: Hopper cooperative GEMM with overlapped wgmma (K_PIPE_MMAS = 1).
# Fix: sm90_wait_pending1_release_previous.cake - after mma_wait(pending=1)
# release the PREVIOUS slot (iter=k-1, whose group is now retired), and
# after the loop retire everything and release the last slot.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def gemm_pending1_bad(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)  # expect-error: sync.race
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)  # expect-error: sync.race

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.arrive(empty, iter=k)  # expect-error: sync.race
        lm.mma_wait(pending=0)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
