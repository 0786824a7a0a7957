# sm_80 multistage GEMM, refill before the MMAs (issue 13, helper sm80e; written
# by gen.py, do not edit by hand). Tile 256x128x32, 4 stages, 8 warps in one
# instance.
#  * prologue: k-blocks 0..2, one cp.async group each (empty past the end).
#  * iteration k: cp_async_wait(pending=2) retires k-block k (groups committed:
#    3 + k) and syncs the instance, which also orders every warp's reads of slot
#    (k - 1) % 4 (k-block k - 1) before its refill with k-block k + 3. Then the
#    copies, commit, and the MMAs of slot k, which no copy in flight touches.
# smem: 4 x (256 + 128) x 32 x 2 B = 98304 B.
# expect: pass
@cake.schedule(target="sm_80")
def sm80cf_256x128_k32_s4(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0, shape=(256, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    smem_b = pool.view(offset=65536, shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    acc    = lm.regs(shape=(256, 128), dtype=lm.f32)
    out    = lm.regs(shape=(256, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 256
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 3):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=2)
            kn = k + 3
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
