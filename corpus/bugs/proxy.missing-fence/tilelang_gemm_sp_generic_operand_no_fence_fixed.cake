# FIXED form of tilelang_gemm_sp_generic_operand_no_fence.cake
# (tile-ai/tilelang issue #2634): fence.proxy.async after the generic
# stores of the A tile and before the wgmma that reads it, as the dense
# T.gemm path already emitted.
# expect: pass
@cake.schedule(target="sm_90a")
def tilelang_gemm_sp_generic_operand_no_fence_fixed(lm, A: LM.gmem, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    pool  = lm.smem(32768)
    a_s   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, swizzle="128B")
    b_s   = pool.view(offset=8192,  shape=(128, 64), dtype=lm.f16, swizzle="128B")
    a_reg = lm.regs(shape=(64, 64), dtype=lm.f16)
    acc   = lm.regs(shape=(64, 128), dtype=lm.f32)

    wg     = lm.role(warps=[0, 1, 2, 3])
    b_full = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)

    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128
    with wg:
        for k in lm.range(0, lm.cdiv(K, 64)):
            b_s.tma_load(B, coords=(n_blk, k * 64), stage=0, barrier=b_full)
            lm.copy(a_reg, A, coords=(m_blk, k * 64))
            lm.copy(a_s[0], a_reg)
            lm.fence_proxy()
            lm.wait(b_full, stage=0)
            lm.mma(acc, a_s[0], b_s[0], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
        lm.copy(C, acc, coords=(m_blk, n_blk))
