# BUG (sync.cluster-exit): facebookexperimental/triton PR #1105 ("[TLX]
# Insert cluster barrier before ret for all clustered kernels",
# 2026-03-18).  The TLX fixup pass inserted the exit cluster sync
# (barrier.cluster arrive + wait before `ret`) only for kernels in paired
# CTA MMA mode (2-CTA tcgen05, whose TMEM deallocation needs the peer
# alive).  Other kernels with clusterDims > 1 - a persistent kernel whose
# cluster launch control (CLC) response is multicast to both CTAs and whose
# consumers release the response slot in every CTA of the cluster with
# remote mbarrier arrives - returned without one: a CTA that finished its
# last tile exited while the peer's consumer was still arriving on this
# CTA's mbarrier (DSMEM access against a departed peer CTA), and once CLC
# had recycled the SM the arrival faulted with CUDA_EXCEPTION_17 ("cluster
# target block not present").  The fix generalizes the exit cluster sync
# to every kernel with clusterDims > 1.
# Modelled: a 2x1 cluster, a CLC warp per CTA (CTA 0 issues the request,
# the 16-byte response lands in both CTAs: a multicast TMA load of a (1, 4)
# i32 box of a stand-in tensor `Clc`, each CTA arming its own clc_full as
# after facebookexperimental/triton PR #908), and a work warp per CTA that
# reads the tile id, fences, releases the response slot in BOTH CTAs
# (clc_empty, init_count 2), then loads its tile with TMA into a 2-stage
# ring of its own and stores a row of it.  The compiler's cluster sync
# after mbarrier initialization is the first lm.cluster_sync(); the bug is
# the missing one before `ret`.  Left out: the MMA pipeline of the real
# kernels (local to each CTA) and the clusterlaunchcontrol query.
# Fix: fbtriton_tlx_clc_cluster_no_exit_sync_fixed.cake.
# expect: sync.cluster-exit
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_tlx_clc_cluster_no_exit_sync(lm, Clc: LM.tma2d, X: LM.tma2d, Y: LM.gmem,
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
        # BUG: no cluster barrier before ret

    with work:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(clc_full, iter=k)
            lm.copy(info, resp[k])
            lm.fence_proxy()
            lm.arrive(clc_empty, iter=k, cta=0)  # expect-error: sync.cluster-exit
            lm.arrive(clc_empty, iter=k, cta=1)  # expect-error: sync.cluster-exit
            xs.tma_load(X, coords=(16 * (2 * k + rank), 0), iter=k, barrier=x_full)
            lm.wait(x_full, iter=k)
            lm.copy(row, xs[k])
            lm.copy(Y, row, coords=(16 * (2 * k + rank), 0))
        # BUG: no cluster barrier before ret
