# BUG (sync.lost-phase): facebookexperimental/triton PR #3472 ("[AutoWS]
# Multi-buffer the 2-CTA cross-CTA rendezvous barrier", 2026-09-04).  For a
# 2-CTA tcgen05 MMA (cta_group::2) the leader CTA issues the MMA over both
# CTAs' shared memory, so before each MMA it must know that the follower's
# B half has landed in the follower's SMEM.  AutoWS built that hand-off as
# a "rendezvous" cross-CTA mbarrier in the leader (two arrivals per phase:
# the leader's own, and the follower's, sent with a remote
# `mbarrier.arrive.shared::cluster` once its load completed) - ONE barrier
# for the whole ring.  The follower is paced only by its own empty ring
# (released by the leader's MMA commit), so with num_stages >= 3 it loads
# and arrives for k + 1, k + 2 before the leader arrived for k: two
# follower arrivals complete a phase the leader's arrival was meant for,
# the leader's wait falls a phase behind and, parity-only, blocks (the PR
# walks through the arrival table for num_stages == 3: a deadlock).  The
# fix gives the rendezvous one barrier per SMEM stage, indexed like the
# ring, so the follower's arrival for k + S cannot happen before the
# leader consumed stage k.
# Modelled: a 2x1 cluster; per CTA a TMA load warp filling a 3-stage A/B
# ring (full/empty), and an MMA warp.  In the leader (rank 0) the MMA warp
# waits its own stage, arrives on the rendezvous, waits it, multiplies
# into TMEM and commits to the local empty barrier; the follower's stage is
# released by a remote arrive from the leader (tcgen05.commit multicast to
# both CTAs' empty barriers in the real kernel).  In the follower the MMA
# warp only waits its own stage and arrives remotely on the leader's
# rendezvous.  Left out (not in the IR): the leader's MMA reading the
# follower's SMEM (2-CTA MMA), so the follower's B half is a local tile
# nobody reads; the follower's half of the accumulator (the leader's
# epilogue warps read and store the leader's half).  Cluster syncs after
# init and before exit.
# Fix: fbtriton_autows_2cta_rendezvous_single_barrier_fixed.cake.
# expect: sync.lost-phase
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def fbtriton_autows_2cta_rendezvous_single_barrier(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(98304)
    sa   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3)
    sb   = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3)
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out  = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])
    rest = lm.role(warps=[2, 3])       # the CTA's other warps: they run the cluster barriers only

    full  = lm.barrier(count=3, prod=[load], cons=[mma], init_count=1)
    empty = lm.barrier(count=3, prod=[mma], cons=[load], init_count=1)
    # BUG: one rendezvous barrier for a 3-stage ring
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    rdv   = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=2)

    rank = lm.cluster_rank()
    k_tiles = lm.cdiv(K, 64)

    with load:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            sa.tma_load(A, coords=(128 * rank, 64 * k), iter=k, barrier=full)
            sb.tma_load(B, coords=(128 * rank, 64 * k), iter=k, barrier=full)
        lm.cluster_sync()

    with mma:
        lm.cluster_sync()
        if rank == 0:
            for k in lm.range(0, k_tiles):
                lm.wait(full, iter=k)
                lm.arrive(rdv, iter=k)
                lm.wait(rdv, iter=k)                       # expect-error: sync.lost-phase
                lm.mma(acc, sa[k], sb[k], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=k)
                lm.arrive(empty, iter=k, cta=1)
            lm.mma_commit(barrier=acc_full, stage=0)
        else:
            for k in lm.range(0, k_tiles):
                lm.wait(full, iter=k)
                lm.arrive(rdv, iter=k, cta=0)
        lm.cluster_sync()

    with epi:
        lm.cluster_sync()
        if rank == 0:
            lm.wait(acc_full, stage=0)
            lm.copy(out, acc)
            lm.copy(C, out, coords=(256 * lm.block_idx(0), 0))
        lm.cluster_sync()
    with rest:
        # every thread of the real kernel runs its cluster barriers (in the lowered
        # kernel a warp without a role would wait at the TMEM dealloc's
        # __syncthreads() and never arrive at barrier.cluster: a hang)
        lm.cluster_sync()
        lm.cluster_sync()
