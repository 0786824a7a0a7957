# The "one wgmma in flight" mainloop with a duplicated release in its
# drain: the loop already released iteration k-1 at every k >= 1 - up to
# k_tiles-2 - and the drain releases k_tiles-2 AGAIN before releasing
# k_tiles-1.  As annotated, phase (k_tiles-2)//4 of slot (k_tiles-2)%4
# gets 3 arrivals for init_count=2.  But an arrival lands in its slot's
# current phase (the lowered mbarrier.arrive names only the slot): the
# duplicate goes into the NEXT phase of that slot, which no wait names (no
# refill follows), so every run is correct - a final courtesy release.
# cake reports no error, and a sync.phase-annotation-mismatch warning
# naming both phases.  (It was corpus/bugs/sync.arrival-overflow/ until
# the error verdict followed what the lowered program does, issue 9 point
# 6; a persistent tile loop that reused the slot would make it an error,
# and the runs would show it.)
# Models: bugs/sync.race/sm90_wait_pending1_release_previous.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_pending1_double_drain(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
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
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
            if k > 0:
                lm.arrive(empty, iter=k - 1)
        lm.mma_wait(pending=0)
        if k_tiles >= 2:
            lm.arrive(empty, iter=k_tiles - 2)
        lm.arrive(empty, iter=k_tiles - 1)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
