# FIXED form of fbtriton_clc_multicta_expect_tx_cta0_only.cake
# (facebookexperimental/triton PR #908): barrier_expect_bytes is no longer
# predicated on CTA 0, so every CTA arms its own bar_full for the 16-byte
# multicast CLC response that lands in it; only CTA 0 issues the request.
# expect: pass
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_clc_multicta_expect_tx_fixed(lm, Clc: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool = lm.smem(1024)
    resp = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)
    info = lm.regs(shape=(1, 4), dtype=lm.i32)

    clc  = lm.role(warps=[0])
    work = lm.role(warps=[1])

    bar_full  = lm.barrier(count=1, prod=[clc], cons=[work], init_count=1)
    bar_empty = lm.barrier(count=1, prod=[work], cons=[clc], init_count=2)

    rank = lm.cluster_rank()

    with clc:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(bar_empty, iter=k - 1)
            lm.expect_tx(bar_full, 16, iter=k)
            if rank == 0:
                resp.tma_load(Clc, coords=(k, 0), iter=k, barrier=bar_full, multicast=3)
        lm.cluster_sync()

    with work:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(bar_full, iter=k)
            lm.copy(info, resp[k])
            lm.fence_proxy()
            lm.arrive(bar_empty, iter=k, cta=0)
            lm.arrive(bar_empty, iter=k, cta=1)
        lm.cluster_sync()
