# FIXED form of fbtriton_autows_fwd_staging_phase_pinned_per_tile.cake
# (facebookexperimental/triton PR #1864): the subtile-index slot is gated to
# same-partition staging; the cross-partition O staging ring's slot and
# phase rotate by the continuous count (here 2 * t + s) in both tasks.
# Everything else is unchanged.
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_autows_fwd_staging_phase_pinned_per_tile_fixed(lm, O: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(32768)
    so   = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    o    = lm.regs(shape=(32, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3], group=1)
    store   = lm.role(warps=[4])

    stg     = lm.pipeline(stages=2)
    o_full  = lm.barrier(prod=[compute], cons=[store], init_count=4, pipeline=stg)
    o_empty = lm.barrier(prod=[store], cons=[compute], init_count=1, pipeline=stg)

    bh = lm.block_idx(1) * 128

    with compute:
        q = 32 * lm.instance()
        for t in lm.range(0, n_tiles):
            for s in lm.range(0, 2):
                lm.fill(o, 0.0)                     # this subtile's O rows
                lm.wait(o_empty, iter=2 * t + s - 2)  # the continuous count
                lm.copy(so[s][q:q + 32, :], o)
                lm.fence_proxy()
                lm.arrive(o_full, iter=2 * t + s)

    with store:
        for t in lm.range(0, n_tiles):
            for s in lm.range(0, 2):
                lm.wait(o_full, iter=2 * t + s)
                so.tma_store(O, coords=(128 * t, bh + 64 * s), stage=s)
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)
                lm.arrive(o_empty, iter=2 * t + s)
