# RESPELLING of corpus/bugs/sync.cluster-exit/fbtriton_tlx_clc_cluster_no_exit_sync_fixed.cake
# (the fix: a cluster barrier before each role returns)
# (facebookexperimental/triton PR #1105): the rank test as `rank < 1`, the
# producer's first lap as a guard, the remote releases as a loop over the
# two CTAs, the x ring with stage=k % 2 and implicit phases, the row
# offset spelled 32 * k + 16 * rank.
# expect: pass
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def clc_persistent_fixed(lm, clc_desc: LM.tma2d, x_desc: LM.tma2d, y: LM.gmem, tiles: LM.i32):
    lm.assume(not tiles <= 0)
    smem = lm.smem(16384)
    resp = smem.view(offset=0, shape=(1, 4), dtype=lm.i32)
    xs   = smem.view(offset=1024, shape=(16, 64), dtype=lm.f32, stages=2)
    tile = lm.regs(shape=(1, 4), dtype=lm.i32)
    vals = lm.regs(shape=(16, 64), dtype=lm.f32)
    scheduler = lm.role(warps=[0])
    consumer  = lm.role(warps=[1])
    resp_full  = lm.barrier(count=1, prod=[scheduler], cons=[consumer], init_count=1)
    resp_empty = lm.barrier(count=1, prod=[consumer], cons=[scheduler], init_count=2)
    x_ready    = lm.barrier(count=2, prod=[consumer], cons=[consumer], init_count=1)
    rank = lm.cluster_rank()
    with scheduler:
        lm.cluster_sync()
        for k in lm.range(0, tiles):
            if k >= 1:
                lm.wait(resp_empty, iter=k - 1)
            lm.expect_tx(resp_full, 16, iter=k)
            if rank < 1:
                resp.tma_load(clc_desc, coords=(k, 0), iter=k, barrier=resp_full, multicast=3)
        lm.cluster_sync()
    with consumer:
        lm.cluster_sync()
        for k in lm.range(0, tiles):
            lm.wait(resp_full, iter=k)
            lm.copy(tile, resp[0])
            lm.fence_proxy()
            for dst_cta in lm.range(0, 2):
                lm.arrive(resp_empty, iter=k, cta=dst_cta)
            xs.tma_load(x_desc, coords=(32 * k + 16 * rank, 0), stage=k % 2, barrier=x_ready)
            lm.wait(x_ready, stage=k % 2)
            lm.copy(vals, xs[k % 2])
            lm.copy(y, vals, coords=(32 * k + 16 * rank, 0))
        lm.cluster_sync()
