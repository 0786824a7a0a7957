# BUG (sync.arrival-underflow): facebookexperimental/triton PR #908 "[TLX] Fix CLC
# barrier race for multi-CTA clusters" (2026-02-15; backported to the
# 3.5.0.1 release branch by PR #1024).  In 2-CTA mode the cluster launch
# control (CLC) producer issues clusterlaunchcontrol.try_cancel with
# .multicast::cluster::all: the 16-byte response is written into the
# same shared-memory slot of EVERY CTA of the cluster, and the write
# completes complete_tx on each CTA's own bar_full.  Only CTA 0 called
# barrier_expect_bytes(bar_full) (predicated on pred_cta0), so CTA 1's
# bar_full never gets the arrival (arrive.expect_tx) its phase needs and
# CTA 1's consumer waits forever ("hanging all odd-ranked CTAs").
# Fix (PR #908): barrier_expect_bytes is unpredicated in multi-CTA mode;
# every CTA arms its own bar_full with the 16 bytes that will land there.
# Written in CAKE IR with the cluster extensions (docs/ir-extensions.md):
# the try_cancel response is a 16-byte multicast TMA load (mask 0b11)
# issued by CTA 0 from a (1, 4) i32 box of a stand-in tensor `Clc`, into
# a one-slot response buffer (num_stages = 1); every CTA's consumer reads
# the tile id with a generic load, fences (the slot is refilled through
# the async proxy) and releases the slot in both CTAs (bar_empty,
# init_count 2), so each CTA's producer can wait on its own bar_empty.
# The hang is CTA 1's bar_full phase with 0 of its 1 arrivals
# (sync.arrival-underflow, cake's rule for a missing arrival; the 16 bytes
# landing on a phase that expects none are sync.tx-imbalance).  Left
# out: the tile work that consumes the tile id, and the consumer-side
# change of the PR (its wait is modelled on every CTA, the state the PR
# describes as hanging).
# Fix: fbtriton_clc_multicta_expect_tx_cta0_only_fixed.cake.
# expect: sync.arrival-underflow
# may-also: sync.tx-imbalance sync.deadlock
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_clc_multicta_expect_tx_cta0_only(lm, Clc: LM.tma2d, n_tiles: LM.i32):
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
            lm.wait(bar_empty, iter=k - 1)                                      # expect-error: sync.arrival-underflow
            if rank == 0:
                lm.expect_tx(bar_full, 16, iter=k)
                resp.tma_load(Clc, coords=(k, 0), iter=k, barrier=bar_full, multicast=3)
        lm.cluster_sync()

    with work:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(bar_full, iter=k)                                           # expect-error: sync.arrival-underflow
            lm.copy(info, resp[k])
            lm.fence_proxy()
            lm.arrive(bar_empty, iter=k, cta=0)
            lm.arrive(bar_empty, iter=k, cta=1)
        lm.cluster_sync()
