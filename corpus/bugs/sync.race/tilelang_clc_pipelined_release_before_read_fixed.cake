# FIXED: tile-ai/tilelang PR #2420 / PR #2423 (issue #2410) - the fix of
# tilelang_clc_pipelined_release_before_read.cake.  Every consumer warp
# reads schedule_valid / schedule_tile_id of the slot into registers
# (local_valid / local_tile_id) BEFORE it arrives on schedule_finished,
# so the scheduler cannot overwrite the slot until every reader has its
# copy.  Modelled as the broken form (see its header): one CTA, the CLC
# response as a 16-byte TMA box, schedule_published (PR #2423) and six
# releasing warps.
# expect: pass
@cake.schedule(target="sm_100a")
def tilelang_clc_pipelined_release_before_read_fixed(lm, Clc: LM.tma2d, Out: LM.gmem,
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
            lm.copy(sched[w], dec)
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
            lm.copy(mine, sched[w - 1])
            lm.arrive(sched_free, iter=w - 1)
            lm.copy(Out, mine, coords=(lm.block_idx(0) * 4 + lm.instance(), 4 * w))
