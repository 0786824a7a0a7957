# FIXED form of fbtriton_tlx_clc_cluster_no_exit_sync.cake
# (facebookexperimental/triton PR #1105): every kernel with clusterDims > 1
# ends with a cluster barrier, so no CTA returns before every peer issued
# its last remote arrive on it.
# expect: pass
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_tlx_clc_cluster_exit_sync_fixed(lm, Clc: LM.tma2d, X: LM.tma2d, Y: LM.gmem,
                                           n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool = lm.smem(16384)
    resp = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)
    xs   = pool.view(offset=1024, shape=(16, 64), dtype=lm.f32, stages=2)
    info = lm.regs(shape=(1, 4), dtype=lm.i32)
    row  = lm.regs(shape=(16, 64), dtype=lm.f32)

    clc  = lm.role(warps=[0])
    work = lm.role(warps=[1])

    clc_full  = lm.barrier(count=1, prod=[clc], cons=[work], init_count=1)
    clc_empty = lm.barrier(count=1, prod=[work], cons=[clc], init_count=2)
    x_full    = lm.barrier(count=2, prod=[work], cons=[work], init_count=1)

    rank = lm.cluster_rank()

    with clc:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(clc_empty, iter=k - 1)
            lm.expect_tx(clc_full, 16, iter=k)
            if rank == 0:
                resp.tma_load(Clc, coords=(k, 0), iter=k, barrier=clc_full, multicast=3)
        lm.cluster_sync()                    # the fix: cluster barrier before ret

    with work:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(clc_full, iter=k)
            lm.copy(info, resp[k])
            lm.fence_proxy()
            lm.arrive(clc_empty, iter=k, cta=0)
            lm.arrive(clc_empty, iter=k, cta=1)
            xs.tma_load(X, coords=(16 * (2 * k + rank), 0), iter=k, barrier=x_full)
            lm.wait(x_full, iter=k)
            lm.copy(row, xs[k])
            lm.copy(Y, row, coords=(16 * (2 * k + rank), 0))
        lm.cluster_sync()                    # the fix: cluster barrier before ret
