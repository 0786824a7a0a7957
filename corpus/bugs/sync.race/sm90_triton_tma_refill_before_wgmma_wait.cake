# BUG (sync.race), a mutant of gemm/sm90_triton_tma_wgmma_pipelined.cake
# (Triton's software-pipelined TMA + wgmma loop on Hopper): the refill of
# step k+2 is issued before warpgroup.wait(1), i.e. while the wgmma of step
# k-1 - which reads the slot (k+2) % 3 = (k-1) % 3 - may still be in
# flight.  The pipeliner must place the refill after the wait that retires
# the slot's last reader (the kind of ordering slip the wgmma pipelining
# pass guards against).
# Fix: gemm/sm90_triton_tma_wgmma_pipelined.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def triton_tma_refill_before_wgmma_wait(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(114688)
    smem_a = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=98304, shape=(64, 128),  dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    wg   = lm.role(warps=[0, 1, 2, 3])
    pipe = lm.pipeline(stages=3)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with wg:
        m_blk = lm.block_idx(0) * 128
        n_blk = lm.block_idx(1) * 128
        smem_a.tma_load(A, coords=(m_blk, 0), iter=0, barrier=full)
        smem_b.tma_load(B, coords=(n_blk, 0), iter=0, barrier=full)
        if k_tiles > 1:
            smem_a.tma_load(A, coords=(m_blk, 64), iter=1, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, 64), iter=1, barrier=full)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))  # expect-error: sync.race
            lm.mma_commit()
            if k + 2 < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full)  # expect-error: sync.race
                smem_b.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full)  # expect-error: sync.race
            lm.mma_wait(pending=1)
        lm.mma_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(smem_c[0], out[0:64, :])
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.copy(smem_c[0], out[64:128, :])
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + 64, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
