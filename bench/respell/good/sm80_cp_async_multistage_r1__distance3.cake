# respells: corpus/bugs/data.stale-read/sm80_prefetch_distance_off_by_one.cake
# change: the prologue as two guarded statements (`if k_tiles > 0`, `if not k_tiles <= 1`) with
# the commits outside, the refill named by stage=(k + 2) % 3 and the operands smem_a[k % 3], the
# refill guard as k + 2 <= k_tiles - 1, the tile count as (K + 31) // 32, init= as k <= 0.
@cake.schedule(target="sm_80")
def gemm_sm80_multistage(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                         M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(not K <= 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = (K + 31) // 32
    m_blk = 128 * lm.block_idx(0)
    n_blk = 128 * lm.block_idx(1)

    with mainloop:
        if k_tiles > 0:
            smem_a.cp_async(A, coords=(m_blk, 0), stage=0)
            smem_b.cp_async(B, coords=(n_blk, 0), stage=0)
        lm.cp_async_commit()
        if not k_tiles <= 1:
            smem_a.cp_async(A, coords=(m_blk, 32), stage=1)
            smem_b.cp_async(B, coords=(n_blk, 32), stage=1)
        lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k % 3], smem_b[k % 3], init=(k <= 0))
            if k + 3 <= k_tiles - 1:
                smem_a.cp_async(A, coords=(m_blk, (k + 3) * 32), stage=(k + 3) % 3)
                smem_b.cp_async(B, coords=(n_blk, (k + 3) * 32), stage=(k + 3) % 3)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
