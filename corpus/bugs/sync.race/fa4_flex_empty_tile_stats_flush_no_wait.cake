# BUG (sync.race): FlashAttention-4's CuTe DSL SM100 forward with block
# sparsity (flex attention), Dao-AILab/flash-attention PR #2258 ("[Cute]
# [Flex] Fix kernel hang w/ multiple empty tiles", bug 3: "Always wait on
# mbar_softmax_corr_empty_offset if blocksparse since you can jump from
# row chunks that have work to ones that don't, and we want to ensure we
# aren't flushing wrong values from previous iterations").  The softmax
# warpgroup hands each tile's row statistics (row max / row sum) to the
# correction warpgroup through shared memory: it waits on the
# softmax->correction empty barrier, stores the statistics, and arrives
# on the full barrier; the correction warpgroup reads them, arrives on
# empty, and rescales / writes O.  For a tile with no KV block the
# softmax side still flushed its statistics for the correction's
# empty-tile path, but skipped the empty-barrier wait: after a tile with
# work, that flush overwrites statistics the correction warpgroup may
# still be reading.  (Bugs 2 and 4 of the same PR are
# fa4_flex_empty_tile_extra_arrive and fa4_flex_empty_tile_phase_flip.)
# Modelled: the two warpgroups and the statistics buffer only - a
# (128, 2) f32 slot, one stage, full / empty mbarriers with iter= phases;
# the tiles of a CTA's persistent loop are n_tiles, the first n_work of
# which have KV blocks and the rest are empty (a jump from work to no
# work); the QK / PV MMAs, TMEM and the O store through shared memory are
# left out (the correction writes its rows of O with a generic store).
# Fix: fa4_flex_empty_tile_stats_flush_no_wait_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.lost-phase
@cake.schedule(target="sm_100a")
def fa4_flex_empty_tile_stats_flush_no_wait(lm, O: LM.gmem, n_tiles: LM.i32, n_work: LM.i32):
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
                lm.wait(sc_empty, iter=t - 1)
            else:
                lm.fill(st_r, 0.0)
            lm.copy(stats[t], st_r)                       # expect-error: sync.race
            lm.arrive(sc_full, iter=t)

    with corr:
        for t in lm.range(0, n_tiles):
            lm.wait(sc_full, iter=t)
            lm.copy(st_c, stats[t])                       # expect-error: sync.race
            lm.arrive(sc_empty, iter=t)
            lm.copy(O, st_c, coords=(lm.block_idx(0) * 128, 2 * t))
