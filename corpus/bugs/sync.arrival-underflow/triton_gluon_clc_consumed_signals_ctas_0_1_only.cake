# BUG (sync.arrival-underflow): Gluon's multi-CTA cluster launch control
# (CLC) scheduler in triton-lang/triton, fixed by PR #10926 ("[MultiCTA]
# Add `from_ctas` to arrive / expect", merged 2026-07): "We also add a fix
# for kernels with `num_ctas > 2` where we were not signaling all the CTAs
# having finished using the CLC result, we were just signaling CTA0 and 1.
# This was a remnant from when we didn't support `num_ctas > 2` very
# well."  The CLC response is multicast into every CTA of the cluster;
# each CTA's consumers, once they have read it, must release the response
# slot in every CTA whose CLC partition waits before the slot's next use.
# With a 4-CTA cluster the consumers still arrived on CTAs 0 and 1 only:
# the CLC partitions of CTAs 2 and 3 wait for releases that never come
# (their consumed barrier expects one arrival per CTA), so they never arm
# the next response, and their consumers never see it.
# Modelled as the TLX CLC pairs (fbtriton_clc_multicta_expect_tx_cta0_only,
# fbtriton_tlx_clc_cluster_no_exit_sync): a 4x1 cluster, a CLC warp per
# CTA that waits for its CTA's consumed barrier (4 arrivals, one per
# CTA's consumer) and arms its own clc_full for the 16-byte response, CTA
# 0 issuing the request as a multicast TMA load (mask 0b1111) of a (1, 4)
# i32 box of a stand-in tensor `Clc`, and a consumer warp per CTA that
# reads the response, fences, and releases the slot - in CTAs 0 and 1
# only.  The tiles' work is local to each CTA and left out; cluster syncs
# after initialization and before exit as in the kernels.
# Fix: triton_gluon_clc_consumed_signals_ctas_0_1_only_fixed.cake.
# expect: sync.arrival-underflow
# may-also: sync.deadlock sync.tx-imbalance sync.cluster-exit
@cake.schedule(target="sm_100a", cluster=(4, 1, 1))
def triton_gluon_clc_consumed_signals_ctas_0_1_only(lm, Clc: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(1024)
    resp = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)
    info = lm.regs(shape=(1, 4), dtype=lm.i32)

    clc  = lm.role(warps=[0])
    cons = lm.role(warps=[1])

    clc_full = lm.barrier(count=1, prod=[clc], cons=[cons], init_count=1)
    consumed = lm.barrier(count=1, prod=[cons], cons=[clc], init_count=4)

    rank = lm.cluster_rank()

    with clc:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(consumed, iter=k - 1)                 # expect-error: sync.arrival-underflow
            lm.expect_tx(clc_full, 16, iter=k)
            if rank == 0:
                resp.tma_load(Clc, coords=(k, 0), iter=k, barrier=clc_full, multicast=15)
        lm.cluster_sync()

    with cons:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(clc_full, iter=k)                     # expect-error: sync.arrival-underflow
            lm.copy(info, resp[k])
            lm.fence_proxy()
            lm.arrive(consumed, iter=k, cta=0)
            lm.arrive(consumed, iter=k, cta=1)
        lm.cluster_sync()
