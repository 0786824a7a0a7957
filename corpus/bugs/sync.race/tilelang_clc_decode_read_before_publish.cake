# BUG (sync.race): TileLang's SM100 CLC work-stealing GEMM, base
# (non-pipelined) kernel gemm_clc_persistent_2cta of
# examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py, tile-ai/tilelang issue
# #2410, fixed by PR #2423 ("Fix SM100 CLC GEMM schedule-state
# lifetime": "Add schedule_published so consumers wait until the
# scheduler has written the shared schedule state").  The scheduler warp
# arms schedule_arrived (arrive.expect_tx 16), issues
# clusterlaunchcontrol.try_cancel onto it, waits for it and then decodes
# the response into the shared schedule_valid / schedule_tile_id.  The
# consumer warps (TMA, MMA, epilogue) waited on the SAME schedule_arrived
# phase and read schedule_valid / schedule_tile_id right away: that phase
# completes when the 16 response bytes land, not when the scheduler's
# decode stores are done, so a consumer can read the previous tile's
# values (or, on the first steal, uninitialized ones) - different warps
# then disagree on whether to break.
# Modelled (one CTA of the 2-CTA cluster, one schedule slot as in the base
# kernel): the response as a TMA load of a (1, 4) i32 box of a stand-in
# tensor `Clc` onto sched_full (= schedule_arrived, expect_tx derived);
# the decoded pair as a (1, 4) i32 slot `sched`; schedule_finished as
# sched_free with the scheduler, the load warp, the MMA warp and the four
# epilogue warps arriving (7, PR #2423's count for one CTA); the
# data-dependent `break` as n_tiles stolen tiles.  The other two bugs
# fixed by PRs #2420 / #2423 (arrive before read, one epilogue warp
# counted) are left out: every consumer reads first and every warp
# arrives.  The scheduler fences after its generic read of the response
# before the slot's next try_cancel (see
# tilelang_clc_pipelined_release_before_read.cake).
# Fix: tilelang_clc_decode_read_before_publish_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def tilelang_clc_decode_read_before_publish(lm, Clc: LM.tma2d, Out: LM.gmem,
                                            n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool  = lm.smem(1024)
    resp  = pool.view(offset=0,   shape=(1, 4), dtype=lm.i32)
    sched = pool.view(offset=256, shape=(1, 4), dtype=lm.i32)
    dec   = lm.regs(shape=(1, 4), dtype=lm.i32)
    mine  = lm.regs(shape=(1, 4), dtype=lm.i32)

    load    = lm.role(warps=[0])
    mma     = lm.role(warps=[1])
    sched_w = lm.role(warps=[2])
    epi     = lm.role(warps=[4, 5, 6, 7], group=1)

    sched_full = lm.barrier(count=1, prod=[sched_w], cons=[sched_w, load, mma, epi], init_count=1)
    sched_free = lm.barrier(count=1, prod=[sched_w, load, mma, epi], cons=[sched_w], init_count=7)

    with sched_w:
        for w in lm.range(0, n_tiles):
            lm.wait(sched_free, iter=w - 1)
            resp.tma_load(Clc, coords=(lm.block_idx(0), 4 * w), iter=w, barrier=sched_full)
            lm.wait(sched_full, iter=w)
            lm.copy(dec, resp[w])
            lm.fence_proxy()
            lm.copy(sched[w], dec)                        # expect-error: sync.race
            lm.arrive(sched_free, iter=w)

    with load:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_full, iter=w - 1)
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race
            lm.arrive(sched_free, iter=w - 1)

    with mma:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_full, iter=w - 1)
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race
            lm.arrive(sched_free, iter=w - 1)

    with epi:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_full, iter=w - 1)
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race
            lm.arrive(sched_free, iter=w - 1)
            lm.copy(Out, mine, coords=(lm.block_idx(0) * 4 + lm.instance(), 4 * w))
