# BUG (sync.race): TileLang's SM100 CLC work-stealing GEMM
# (examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py,
# gemm_clc_persistent_2cta_pipelined_clc), tile-ai/tilelang issue #2410
# ("Intermittent hang in SM100 CLC scheduler GEMM"), fixed by PR #2420
# (read the slot into registers first) and PR #2423 ("Fix SM100 CLC GEMM
# schedule-state lifetime").  The scheduler warp decodes each
# clusterlaunchcontrol.try_cancel response into the shared
# schedule_valid[s] / schedule_tile_id[s] slots of a clc_stages-deep ring;
# every consumer warp (TMA, MMA, epilogue) waited for the slot and then
# did
#     if tx == leader: mbarrier_arrive(schedule_finished[s])  # slot free
#     if schedule_valid[s] == 0: break                        # read AFTER
#     tile_id = schedule_tile_id[s]                           # read AFTER
# The arrival is what lets the scheduler, running clc_stages ahead, reuse
# the slot: its next decode can land between a consumer's arrive and its
# read, different warps then see different schedule_valid values, some
# break and some do not, and the barrier counts no longer match (hang).
# Modelled (one CTA of the 2-CTA cluster; its peer's warps arrive on the
# same barrier the same way): the 16-byte CLC response as a TMA load of a
# (1, 32) i32 box of a stand-in tensor `Clc` onto sched_full (padded to
# 128 bytes, the slot alignment TMA needs; its expect_tx derived) whose
# first four words are decoded; the decode as a register copy of the
# response stored into `sched` (schedule_valid and schedule_tile_id, one
# (1, 4) i32 slot per stage - the pair padded to 16 bytes, clc_stages = 2), published through
# sched_pub (PR #2423's schedule_published) and released through
# sched_free (schedule_finished; the load warp, the MMA warp and the four
# epilogue warps, 6 arrivals - PR #2423's count of every store warp); the
# data-dependent `break` as a fixed number of stolen tiles n_tiles, the
# last response read being the invalid one.  The GEMM itself (TMA ring,
# tcgen05, TMEM) never touches the schedule slots and is left out; each
# consumer only uses the tile id it read (the epilogue stores it).  The
# scheduler fences (fence.proxy.async) after its generic read of the
# response before the slot's next try_cancel: TileLang's kernel has no
# such fence (cudnn-frontend PR #894 added one to its own CLC decoder for
# that reason); without it cake reports proxy.missing-fence as well.
# Only PR #2420's ordering bug is left in: every consumer arrives on
# sched_free before it reads the slot.
# Fix: tilelang_clc_pipelined_release_before_read_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def tilelang_clc_pipelined_release_before_read(lm, Clc: LM.tma2d, Out: LM.gmem,
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
    sched_free = lm.barrier(prod=[load, mma, epi], cons=[sched_w], init_count=6, pipeline=clc_ring)

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
            lm.arrive(sched_free, iter=w - 1)             # expect-error: sync.race
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race

    with mma:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_pub, iter=w - 1)
            lm.arrive(sched_free, iter=w - 1)             # expect-error: sync.race
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race

    with epi:
        for w in lm.range(1, n_tiles + 1):
            lm.wait(sched_pub, iter=w - 1)
            lm.arrive(sched_free, iter=w - 1)             # expect-error: sync.race
            lm.copy(mine, sched[w - 1])                   # expect-error: sync.race
            lm.copy(Out, mine, coords=(lm.block_idx(0) * 4 + lm.instance(), 4 * w))
