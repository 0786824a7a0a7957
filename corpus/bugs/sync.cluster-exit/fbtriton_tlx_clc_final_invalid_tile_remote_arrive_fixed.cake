# FIXED: facebookexperimental/triton PR #1108 - the fix of
# fbtriton_tlx_clc_final_invalid_tile_remote_arrive.cake: the consumer
# skips the trailing remote arrive when the tile id it extracted is -1
# (response n_tiles here), so every remote arrive it makes is one the
# producing CTA waits for before it can leave its loop.  Modelled as the
# broken form (see its header); no exit cluster barrier is needed.
# expect: pass
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_tlx_clc_final_invalid_tile_remote_arrive_fixed(lm, Clc: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 0)
    pool = lm.smem(1024)
    resp = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)
    info = lm.regs(shape=(1, 4), dtype=lm.i32)

    clc  = lm.role(warps=[0])
    work = lm.role(warps=[1])

    clc_full  = lm.barrier(count=1, prod=[clc], cons=[work], init_count=1)
    clc_empty = lm.barrier(count=1, prod=[work], cons=[clc], init_count=2)

    rank = lm.cluster_rank()

    with clc:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles + 1):
            lm.wait(clc_empty, iter=k - 1)
            lm.expect_tx(clc_full, 16, iter=k)
            if rank == 0:
                resp.tma_load(Clc, coords=(k, 0), iter=k, barrier=clc_full, multicast=3)

    with work:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles + 1):
            lm.wait(clc_full, iter=k)
            lm.copy(info, resp[k])
            lm.fence_proxy()
            if k < n_tiles:
                lm.arrive(clc_empty, iter=k, cta=0)
                lm.arrive(clc_empty, iter=k, cta=1)
