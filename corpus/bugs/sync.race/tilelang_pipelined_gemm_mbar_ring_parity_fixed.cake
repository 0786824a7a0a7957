# FIXED: tilelang_pipelined_gemm_mbar_ring_parity.cake as tile-ai/tilelang
# PR #3087 fixes it: ops that wait on an explicit mbarrier are annotated
# with the logical iteration's parity (k - min) % 2 - the barrier's k-th
# completion, phase=k - and only the ring's TMA copies keep the ring parity.
# expect: pass
@cake.schedule(target="sm_100a")
def tilelang_pipelined_gemm_mbar_iteration_parity(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    pool     = lm.smem(131072)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b   = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c   = pool.view(offset=98304, shape=(128, 128), dtype=lm.bf16)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    c_frag   = lm.regs(shape=(128, 128), dtype=lm.f32)

    wg   = lm.role(warps=[0, 1, 2, 3])
    ring = lm.pipeline(stages=3)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=ring)
    mbar = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with wg:
        for k in lm.range(0, min(2, k_tiles)):
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=mbar, stage=0)
            lm.wait(mbar, stage=0, phase=k)
            if k + 2 < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full)
        lm.copy(c_frag, tmem_acc)
        lm.copy(smem_c[0], c_frag)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
