# sm_80 multistage GEMM, 128x128x32 tile, 4 stages, 4 warps in one
# instance (issue 13, helper sm80pp: the sm_80 path on the H200). 4 warps (2 CTAs per SM), one
# more slot than the corpus file.
# The schedule of corpus/gemm/sm80_cp_async_multistage.cake (CUTLASS sm80
# MmaMultistage: one cp.async group per k-block, empty groups committed past
# the end so the count stays uniform, cp_async_wait(pending=S-2) then the
# instance sync before the MMAs read the slot) at another tile; the lowering
# picks the warp grid (the most square m16 x n16 multiple).
# smem: 4 x (8 + 8) KiB = 64 KiB.
# expect: pass
@cake.schedule(target="sm_80")
def sm80_128x128_k32_s4(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0, shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    smem_b = pool.view(offset=32768, shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 3):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=2)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 3
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
