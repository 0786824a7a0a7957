# FIXED: tile-ai/tilelang PR #2423 (issue #2410) - the fix of
# tilelang_clc_decode_read_before_publish.cake.  The scheduler arrives on
# a new barrier, schedule_published, after its decode stores; the
# consumer warps wait on it (not on the try_cancel transaction barrier)
# before they read schedule_valid / schedule_tile_id.  Modelled as the
# broken form (see its header).
# expect: pass
@cake.schedule(target="sm_100a")
def tilelang_clc_decode_read_before_publish_fixed(lm, Clc: LM.tma2d, Out: LM.gmem,
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

    sched_full = lm.barrier(count=1, prod=[sched_w], cons=[sched_w], init_count=1)
    sched_pub  = lm.barrier(count=1, prod=[sched_w], cons=[load, mma, epi], init_count=1)
    sched_free = lm.barrier(count=1, prod=[sched_w, load, mma, epi], cons=[sched_w], init_count=7)

    with sched_w:
        for w in lm.range(0, n_tiles):
            lm.wait(sched_free, iter=w - 1)
            resp.tma_load(Clc, coords=(lm.block_idx(0), 4 * w), iter=w, barrier=sched_full)
            lm.wait(sched_full, iter=w)
            lm.copy(dec, resp[w])
            lm.fence_proxy()
            lm.copy(sched[w], dec)
            lm.arrive(sched_pub, iter=w)
            lm.arrive(sched_free, iter=w)

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
