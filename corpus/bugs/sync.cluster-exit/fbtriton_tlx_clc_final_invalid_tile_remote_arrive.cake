# BUG (sync.cluster-exit): facebookexperimental/triton PR #1108 ("[TLX][CLC]
# Fix the final trailing remote bar arrive in the last consumer call",
# 2026-03-19).  In TLX's multi-CTA cluster launch control (CLC) pipeline
# the consumer side of `clc_consumer` waits for the multicast response,
# extracts the tile id, and arrives on the response slot's empty barrier
# of the producing CTA (a remote mbarrier arrive) so that the producer can
# issue the next try_cancel.  When the extracted tile id is -1 there is no
# more work and the producer makes no further request - it leaves its
# loop and the CTA exits - yet the consumer still made that last remote
# arrive: "cta0 could have already exited now, and cta1 would be issuing
# an invalid DSMEM access" (caught by compute-sanitizer synccheck in the
# PR's unit test).  The fix skips the final arrive when the tile id is -1.
# Modelled as fbtriton_tlx_clc_cluster_no_exit_sync.cake (PR #1105, the
# day before: a 2x1 cluster, a CLC warp per CTA, CTA 0 issuing each
# 16-byte response as a multicast TMA load of a (1, 4) i32 box of a
# stand-in tensor `Clc`, each CTA arming its own clc_full, a work warp per
# CTA that reads the response, fences and releases the slot in both CTAs),
# with the terminating response made explicit: n_tiles responses carry a
# tile, response n_tiles is the -1 one, after which neither the CLC warps
# nor the work warps continue.  As in the PR's unit test the kernel has no
# exit cluster barrier (PR #1105 added one separately); the work itself
# (TMA ring, MMA) is local to each CTA and left out.
# Fix: fbtriton_tlx_clc_final_invalid_tile_remote_arrive_fixed.cake.
# expect: sync.cluster-exit
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_tlx_clc_final_invalid_tile_remote_arrive(lm, Clc: LM.tma2d, n_tiles: LM.i32):
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
            lm.arrive(clc_empty, iter=k, cta=0)  # expect-error: sync.cluster-exit
            lm.arrive(clc_empty, iter=k, cta=1)  # expect-error: sync.cluster-exit
