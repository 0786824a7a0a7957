# sm_80 multistage GEMM, refill between k-step slices (issue 13, helper sm80e; written
# by gen.py, do not edit by hand). Tile 256x128x64, 3 stages, 8 warps in one
# instance.
#  * prologue: k-blocks 0..1, one cp.async group each (empty past the end).
#  * iteration k: cp_async_wait(pending=1) retires k-block k (groups committed:
#    2 + k) and syncs the instance, which also orders every warp's reads of slot
#    (k - 1) % 3 (k-block k - 1) before its refill with k-block k + 2. The MMAs of
#    slot k run as two k-step slices, [0:32] and [32:64], with the refill between them.
# smem: 3 x (256 + 128) x 64 x 2 B = 147456 B.
# expect: pass
@cake.schedule(target="sm_80")
def sm80mid_256x128_k64_s3(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(147456)
    smem_a = pool.view(offset=0, shape=(256, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=98304, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(256, 128), dtype=lm.f32)
    out    = lm.regs(shape=(256, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 256
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 64), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            kn = k + 2
            lm.mma(acc, smem_a[k][:, 0:32], smem_b[k][:, 0:32], init=(k == 0))
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 64), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 64), iter=kn)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k][:, 32:64], smem_b[k][:, 32:64])
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
