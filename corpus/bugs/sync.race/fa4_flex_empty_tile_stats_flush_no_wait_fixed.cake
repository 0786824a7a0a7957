# FIXED: Dao-AILab/flash-attention PR #2258 (bug 3) - the fix of
# fa4_flex_empty_tile_stats_flush_no_wait.cake: with block sparsity the
# softmax warpgroup always waits on the softmax->correction empty barrier
# before it stores a tile's statistics, empty tile or not.  Modelled as
# the broken form (see its header).
# expect: pass
@cake.schedule(target="sm_100a")
def fa4_flex_empty_tile_stats_flush_no_wait_fixed(lm, O: LM.gmem, n_tiles: LM.i32, n_work: LM.i32):
    lm.assume(n_tiles >= 1)
    lm.assume(n_work >= 0)
    pool  = lm.smem(4096)
    stats = pool.view(offset=0, shape=(128, 2), dtype=lm.f32)
    st_r  = lm.regs(shape=(128, 2), dtype=lm.f32)
    st_c  = lm.regs(shape=(128, 2), dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3])
    corr    = lm.role(warps=[4, 5, 6, 7])

    sc_full  = lm.barrier(count=1, prod=[softmax], cons=[corr], init_count=1)
    sc_empty = lm.barrier(count=1, prod=[corr], cons=[softmax], init_count=1)

    with softmax:
        for t in lm.range(0, n_tiles):
            if t < n_work:
                lm.fill(st_r, 1.0)
            else:
                lm.fill(st_r, 0.0)
            lm.wait(sc_empty, iter=t - 1)
            lm.copy(stats[t], st_r)
            lm.arrive(sc_full, iter=t)

    with corr:
        for t in lm.range(0, n_tiles):
            lm.wait(sc_full, iter=t)
            lm.copy(st_c, stats[t])
            lm.arrive(sc_empty, iter=t)
            lm.copy(O, st_c, coords=(lm.block_idx(0) * 128, 2 * t))
