# RESPELLING of corpus/bugs/data.uninitialized/tilelang_rr_gemm_clear_accum_dropped.cake
# (tile-ai/tilelang issue #2617): the two K halves as a loop whose slice
# bounds use the loop variable, init=False spelled out, one cp.async
# commit group per operand.
# expect: data.uninitialized
@cake.schedule(target="sm_80")
def gemm_rr(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
    smem = lm.smem(16384)
    a_sh = smem.view(offset=0,    shape=(128, 32), dtype=lm.f16)
    b_sh = smem.view(offset=8192, shape=(128, 32), dtype=lm.f16)
    a_fr = lm.regs(shape=(128, 32), dtype=lm.f16)
    b_fr = lm.regs(shape=(128, 32), dtype=lm.f16)
    c_fr = lm.regs(shape=(128, 128), dtype=lm.f32)
    c_16 = lm.regs(shape=(128, 128), dtype=lm.f16)
    cta = lm.role(warps=[0, 1, 2, 3])
    bx = 128 * lm.block_idx(0)
    by = 128 * lm.block_idx(1)
    with cta:
        a_sh.cp_async(A, coords=(bx, 0), stage=0)
        lm.cp_async_commit()
        b_sh.cp_async(B, coords=(by, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(b_fr, b_sh[0])
        lm.copy(a_fr, a_sh[0])
        for kk in lm.range(0, 2):
            lm.mma(c_fr, a_fr[:, 16 * kk:16 * kk + 16], b_fr[:, 16 * kk:16 * kk + 16], init=False)   # expect-error: data.uninitialized
        lm.copy(c_16, c_fr)
        lm.copy(C, c_16, coords=(bx, by))
