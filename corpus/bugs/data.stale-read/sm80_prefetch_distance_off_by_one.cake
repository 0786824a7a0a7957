# BUG (data.stale-read): Ampere 3-stage multistage GEMM whose in-loop
# prefetch distance is S (kn = k + 3) instead of S-1 (kn = k + 2).  The
# prologue fills k-blocks 0 and 1; iteration 0 then loads k-block 3 into
# slot 0 and iteration 1 loads k-block 4 into slot 1, so k-block 2 is never
# loaded: at k = 2 mma.sync reads slot 2, which holds no k-block at all
# (and later iterations stay consistent again).  Every access is properly
# ordered - no race - the data is simply not the iteration the read names.
# Happens for every K > 64 (k_tiles >= 3).
# Models: gemm/sm80_cp_async_multistage.cake.
# Fix: gemm/sm80_cp_async_multistage.cake - kn = k + S - 1.
# expect: data.stale-read
@cake.schedule(target="sm_80")
def gemm_sm80_prefetch_distance_off_by_one(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                         M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

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
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))  # expect-error: data.stale-read
            kn = k + 3
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        # epilogue: convert and store straight from registers
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
