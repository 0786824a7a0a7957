# BUG (sync.race): the tile-metadata mailbox of cuda-oxide's gemm_sol
# phase 4B kernel (gemm_sol_clc, Blackwell, CLC work stealing), fixed by
# NVlabs/cuda-oxide PR #1066 (found by its schedule-perturbation campaign,
# PR #1065).  The producer warp publishes {tile_m, tile_n, has_work} in
# the shared TILE_INFO mailbox, signals TILE_READY, and reuses the mailbox
# for the next stolen tile; the MMA warp and the four epilogue warps wait
# on TILE_READY and read it - but nothing tells the producer that all five
# readers have copied the current values before it overwrites them, so a
# different warp schedule pairs epilogue output with the wrong tile.
# Modelled: the mailbox as a 16-byte one-slot view of i32, one producer
# warp, the MMA warp and four single-warp epilogue instances as readers,
# `tiles` stolen tiles plus the final has_work = 0 publish; the GEMM itself
# (TMA, tcgen05, TMEM) does not touch the mailbox and is left out.
# Fix: cuda_oxide_clc_tile_info_mailbox_no_free_fixed.cake.
# expect: sync.race
# may-also: sync.lost-phase data.stale-read
@cake.schedule(target="sm_100a")
def gemm_sol_clc_tile_info_no_free(lm, Sched: LM.gmem, Out: LM.gmem, tiles: LM.i32):
    lm.assume(tiles >= 0)
    pool      = lm.smem(1024)
    tile_info = pool.view(offset=0, shape=(1, 4), dtype=lm.i32, stages=1)
    info_p    = lm.regs(shape=(1, 4), dtype=lm.i32)
    info_r    = lm.regs(shape=(1, 4), dtype=lm.i32)

    producer = lm.role(warps=[0])
    mma      = lm.role(warps=[1])
    epi      = lm.role(warps=[2, 3, 4, 5], group=1)
    ready    = lm.barrier(count=1, prod=[producer], cons=[mma, epi], init_count=1)

    with producer:
        for t in lm.range(0, tiles + 1):
            lm.copy(info_p, Sched, coords=(lm.block_idx(0), t * 4))
            lm.copy(tile_info, info_p)  # expect-error: sync.race
            lm.arrive(ready, iter=t)

    with mma:
        for t in lm.range(0, tiles + 1):
            lm.wait(ready, iter=t)
            lm.copy(info_r, tile_info)  # expect-error: sync.race
            lm.copy(Out, info_r, coords=(lm.block_idx(0), t * 4))

    with epi:
        for t in lm.range(0, tiles + 1):
            lm.wait(ready, iter=t)
            lm.copy(info_r, tile_info)  # expect-error: sync.race
            lm.copy(Out, info_r, coords=(lm.block_idx(0) + 1 + lm.instance(), t * 4))
