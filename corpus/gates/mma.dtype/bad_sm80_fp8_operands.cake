# GATE mma.dtype (bad): an FP8 (e4m3) GEMM ported to Ampere.  mma.sync on
# sm_80 has no fp8 input types (fp8 tensor-core MMA starts with sm_89 /
# sm_90a), so the e4m3 x e4m3 -> f32 multiply has no instruction here.
# (e4m3 K-blocks of 128: 128-byte rows, 128B swizzle.)
# Fix: good_sm80_bf16_operands.cake (bf16 operands on sm_80), or target
# sm_90a.
# expect: mma.dtype
# may-also: mma.no-instruction
@cake.schedule(target="sm_80")
def gemm_sm80_fp8(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(128, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 128)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with wg:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 128), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 128), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))  # expect-error: mma.dtype
            if k + 2 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 2) * 128), iter=k + 2)
                smem_b.cp_async(B, coords=(n_blk, (k + 2) * 128), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
