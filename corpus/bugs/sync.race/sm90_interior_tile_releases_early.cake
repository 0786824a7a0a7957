# BUG (sync.race): every CTA but the one that owns the last row tile
# (m_blk + 128 < M: an interior tile) releases each ring slot before
# retiring the wgmma group that reads it.  M reaches the schedule only
# through that guard, which compares two symbolic sides
# (lm.block_idx(0) * 128 + 128 and M): the covering values must take both
# outcomes (M=127 or 128: the first tile is the last one; M=129: it is
# not).  With M left at 1 the bug never shows.
# Fix: basics/guard_two_params_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def gemm_interior_tile_releases_early(lm, A: LM.tma2d, B: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7], regs=232)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)  # expect-error: sync.race
            smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)  # expect-error: sync.race
    with consumers:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][0:64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            if m_blk + 128 < M:
                lm.arrive(empty, iter=k)
                lm.mma_wait(pending=0)
            else:
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k)
