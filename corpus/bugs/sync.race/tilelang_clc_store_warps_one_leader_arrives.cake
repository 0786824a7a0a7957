# BUG (sync.race): TileLang's SM100 CLC work-stealing GEMM
# (examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py), tile-ai/tilelang issue
# #2410, second bug fixed by PR #2423 ("the store path under-counted
# consumers: each CTA has four store warps that read the schedule state,
# but only one store warp leader participated in schedule_finished").
# After PR #2420 every consumer warp copies schedule_valid /
# schedule_tile_id of its slot into registers before the release, but in
# the epilogue warpgroup (threads 128..255, four warps that each read the
# slot) only thread 128 - warp 4 - arrives on schedule_finished, with no
# barrier among the four warps first: once warp 4 has read and arrived,
# the scheduler (running clc_stages ahead) may overwrite the slot while
# warps 5..7 still read it.
# Modelled as tilelang_clc_pipelined_release_before_read.cake (one CTA of
# the 2-CTA cluster, the CLC response as a padded 128-byte TMA box,
# schedule_published from PR #2423, clc_stages = 2, a scheduler fence
# after the decode), with every consumer reading before it arrives; the
# epilogue is four single-warp instances of which only instance 0
# arrives, and schedule_finished counts the load warp, the MMA warp and
# that one epilogue leader (3; PR #2420's 5 for the 2-CTA cluster).
# Fix: tilelang_clc_pipelined_release_before_read_fixed.cake, the kernel
# after PRs #2420 and #2423 (all four store warp leaders arrive: 6 per CTA
# here, PR #2423's 11 for the cluster).
# expect: sync.race
# may-also: data.stale-read sync.lost-phase
@cake.schedule(target="sm_100a")
def tilelang_clc_store_warps_one_leader_arrives(lm, Clc: LM.tma2d, Out: LM.gmem,
                                               n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool  = lm.smem(1024)
    resp  = pool.view(offset=0,   shape=(1, 32), dtype=lm.i32, stages=2)
    sched = pool.view(offset=512, shape=(1, 4), dtype=lm.i32, stages=2)
    raw   = lm.regs(shape=(1, 32), dtype=lm.i32)
    dec   = lm.regs(shape=(1, 4), dtype=lm.i32)
    mine  = lm.regs(shape=(1, 4), dtype=lm.i32)

    load   = lm.role(warps=[0])
    mma    = lm.role(warps=[1])
    sched_w = lm.role(warps=[2])
    epi    = lm.role(warps=[4, 5, 6, 7], group=1)

    clc_ring   = lm.pipeline(stages=2)
    sched_full = lm.barrier(prod=[sched_w], cons=[sched_w], init_count=1, pipeline=clc_ring)
    sched_pub  = lm.barrier(prod=[sched_w], cons=[load, mma, epi], init_count=1, pipeline=clc_ring)
    sched_free = lm.barrier(prod=[load, mma, epi], cons=[sched_w], init_count=3, pipeline=clc_ring)

    with sched_w:
        for w in lm.range(0, n_tiles):
            lm.wait(sched_free, iter=w - 2)
            resp.tma_load(Clc, coords=(lm.block_idx(0), 32 * w), iter=w, barrier=sched_full)
            lm.wait(sched_full, iter=w)
            lm.copy(raw, resp[w])
            lm.copy(dec, raw[:, 0:4])
            lm.fence_proxy()
            lm.copy(sched[w], dec)                        # expect-error: sync.race
            lm.arrive(sched_pub, iter=w)

    with load:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_pub, iter=w - 1)
            lm.copy(mine, sched[w - 1])
            lm.arrive(sched_free, iter=w - 1)

    with mma:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_pub, iter=w - 1)
            lm.copy(mine, sched[w - 1])
            lm.arrive(sched_free, iter=w - 1)

    with epi:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_pub, iter=w - 1)
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race
            if lm.instance() == 0:
                lm.arrive(sched_free, iter=w - 1)         # expect-error: sync.race
            lm.copy(Out, mine, coords=(lm.block_idx(0) * 4 + lm.instance(), 4 * w))
