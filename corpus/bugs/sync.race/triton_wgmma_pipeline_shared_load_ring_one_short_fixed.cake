# FIXED form of triton_wgmma_pipeline_shared_load_ring_one_short.cake
# (triton-lang/triton PR #8554): the A tile, which feeds two wgmmas, gets
# the extra buffer too (4 buffers for loads two iterations ahead), so the
# load at the top of iteration k goes into A buffer (k + 2) % 4, last read
# by iteration k - 2's wgmmas, which iteration k - 1's wait(1) retired.
# Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_wgmma_pipeline_shared_load_ring_one_short_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                                     K: LM.i32):
    lm.assume(K >= 128)
    pool   = lm.smem(131072)
    smem_a  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b0 = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b1 = pool.view(offset=65536, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=98304, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc0   = lm.regs(shape=(64, 64), dtype=lm.f32)
    acc1   = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg     = lm.role(warps=[0, 1, 2, 3])
    full_a = lm.barrier(count=4, prod=[wg], cons=[wg], init_count=1)
    full_b = lm.barrier(count=4, prod=[wg], cons=[wg], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with wg:
        for k in lm.range(0, 2):                                 # prologue: stages 0, 1
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full_a)
            smem_b0.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full_b)
            smem_b1.tma_load(B, coords=(n_blk + 64, k * 64), iter=k, barrier=full_b)
        for k in lm.range(0, k_tiles):
            if k + 2 < k_tiles:                                  # stage 0: loads for k + 2
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full_a)
                smem_b0.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full_b)
                smem_b1.tma_load(B, coords=(n_blk + 64, (k + 2) * 64), iter=k + 2, barrier=full_b)
            lm.wait(full_a, iter=k)
            lm.wait(full_b, iter=k)
            lm.mma(acc0, smem_a[k], smem_b0[k], init=(k == 0))
            lm.mma(acc1, smem_a[k], smem_b1[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
        lm.mma_wait(pending=0)
        lm.copy(smem_c[0], acc0)
        lm.copy(smem_c[1], acc1)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        smem_c.tma_store(C, coords=(m_blk, n_blk + 64), stage=1)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
