# FIXED: triton_wgmma_pipelined_single_buffered_operand.cake as
# triton-lang/triton PR #3106 fixes it: asyncLaunchDots pipelines a wgmma
# only when BOTH shared-memory operands are multi-buffered.  B lives in a
# single buffer, so the dot stays synchronous (warp_group_dot_wait
# {pendings = 0} right after it) and the next iteration's store into B
# finds no wgmma reading it.  The A ring is still refilled two k-blocks
# ahead.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_wgmma_single_buffered_operand_sync_dot(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    pool     = lm.smem(65536)
    smem_a   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_braw = pool.view(offset=24576, shape=(64, 64), dtype=lm.e4m3, stages=3)
    smem_b   = pool.view(offset=40960, shape=(64, 64), dtype=lm.bf16, swizzle="128B")
    smem_c   = pool.view(offset=49152, shape=(64, 64), dtype=lm.bf16)
    b_frag   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc      = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg   = lm.role(warps=[0, 1, 2, 3])
    ring = lm.pipeline(stages=3)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=ring)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 64

    with wg:
        for k in lm.range(0, min(2, k_tiles)):
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_braw.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(b_frag, smem_braw[k])          # fp8 -> bf16
            lm.fence_proxy()
            lm.copy(smem_b[0], b_frag)
            lm.fence_proxy()
            lm.mma(acc, smem_a[k], smem_b[0], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if k + 2 < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full)
                smem_braw.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
