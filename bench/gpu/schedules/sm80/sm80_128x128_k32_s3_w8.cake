# sm_80 multistage GEMM, 128x128x32 tile, 3 stages, 8 warps in one instance
# (warp tile 64x32; issue 13, helper sm80pp): the corpus file's schedule with
# twice the warps. With __launch_bounds__(256, 1) ptxas takes ~140 registers,
# so one CTA (8 warps) per SM; bench/gpu/device_sm80pp.sh also times its
# lowered source with the bound edited to (256, 2) by hand (16 warps per SM,
# 128 registers per thread) to measure what occupancy is worth.
# smem: 3 x (8 + 8) KiB = 48 KiB.
# expect: pass
@cake.schedule(target="sm_80")
def sm80_128x128_k32_s3_w8(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
