# FIX of tilelang_rr_gemm_clear_accum_dropped.cake: tile-ai/tilelang
# issue #2617 as fixed: the RR branch of GemmMMA.lower clears C_buf before
# its micro-K loop when clear_accum is set, as the SS and RS branches do
# (here: init=True on the first micro-K step, the same as a fill before it).
# Same model as the broken file.
# expect: pass
# lower: unsupported (an mma on sliced register operand fragments: the lowering takes whole fragments)
@cake.schedule(target="sm_80")
def tilelang_rr_gemm_clear_accum_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(128, 32), dtype=lm.f16, stages=1)
    smem_b = pool.view(offset=8192, shape=(128, 32), dtype=lm.f16, stages=1)
    fa     = lm.regs(shape=(128, 32), dtype=lm.f16)
    fb     = lm.regs(shape=(128, 32), dtype=lm.f16)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.f16)

    threads = lm.role(warps=[0, 1, 2, 3])
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with threads:
        smem_a.cp_async(A, coords=(m_blk, 0), stage=0)
        smem_b.cp_async(B, coords=(n_blk, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(fa, smem_a[0])                              # T.copy(A_shared, A_frag)
        lm.copy(fb, smem_b[0])                              # T.copy(B_shared, B_frag)
        lm.mma(acc, fa[:, 0:16], fb[:, 0:16], init=True)    # the fix: clear_accum honoured (C cleared first)
        lm.mma(acc, fa[:, 16:32], fb[:, 16:32])
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
