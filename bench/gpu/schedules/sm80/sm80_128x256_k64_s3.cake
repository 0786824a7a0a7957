# sm_80 multistage GEMM, 128x256x64 tile, 3 stages, 8 warps in one
# instance (issue 13, helper sm80pp: the sm_80 path on the H200). 8 warps, warp tile 64x64,
# k-blocks of 64 (half the syncs and waits per MMA of k-blocks of 32).
# The schedule of corpus/gemm/sm80_cp_async_multistage.cake (CUTLASS sm80
# MmaMultistage: one cp.async group per k-block, empty groups committed past
# the end so the count stays uniform, cp_async_wait(pending=S-2) then the
# instance sync before the MMAs read the slot) at another tile; the lowering
# picks the warp grid (the most square m16 x n16 multiple).
# smem: 3 x (16 + 32) KiB = 144 KiB.
# expect: pass
@cake.schedule(target="sm_80")
def sm80_128x256_k64_s3(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(147456)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(256, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 256), dtype=lm.f32)
    out    = lm.regs(shape=(128, 256), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 256

    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 64), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 64), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 64), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
