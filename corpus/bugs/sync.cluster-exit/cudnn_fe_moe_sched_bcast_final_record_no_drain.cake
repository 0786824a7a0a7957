# BUG (sync.cluster-exit): NVIDIA/cudnn-frontend PR #813 ("fix(frost):
# drain final MoE scheduler broadcast"), SM100 grouped-MoE GEMM templates
# (plain and block-scaled).  The leader CTA's scheduler broadcasts its tile
# records to the cluster through a ring whose stages the peers'
# scheduler warps acknowledge on a distributed-shared-memory barrier in the
# leader: "Normal ring reuse waits for acknowledgements before a stage is
# reused.  The final invalid scheduler record exits the loop instead, so no
# later reuse keeps the leader CTA and its distributed shared-memory barrier
# alive while peers still acknowledge it."  A peer's acknowledgement of the
# final record can land after the leader CTA has exited.
# Modelled (sm_100a, a 2x1 cluster): in every CTA a broadcast warp and a
# scheduler warp; the leader's broadcast warp publishes n_tiles records and
# then the invalid one (record n_tiles) through a 2-stage ring, waiting for
# a stage's acknowledgements from both CTAs' scheduler warps (empty, two
# arrivals, in the leader) before it reuses the stage; each scheduler warp
# arms its own CTA's full barrier, reads the record, and acknowledges with a
# remote arrive on the leader's empty barrier.  The records travel as a
# multicast TMA load of a stand-in tensor `Recs` into both CTAs (the IR has
# no stores into a peer CTA's shared memory; the kernel's delivery path is
# not shown in the PR text); the tile work the records schedule is local to
# each CTA and left out.
# Fix: cudnn_fe_moe_sched_bcast_final_record_no_drain_fixed.cake.
# expect: sync.cluster-exit
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def cudnn_fe_moe_sched_bcast_final_record_no_drain(lm, Recs: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 0)
    pool = lm.smem(1024)
    ring = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=2)
    rec  = lm.regs(shape=(1, 32), dtype=lm.i32)

    bcast = lm.role(warps=[0])
    sched = lm.role(warps=[1])

    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[bcast, sched], cons=[sched], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[sched], cons=[bcast], init_count=2, pipeline=pipe)

    rank = lm.cluster_rank()

    with bcast:
        lm.cluster_sync()
        if rank == 0:
            for k in lm.range(0, n_tiles + 1):
                lm.wait(empty, iter=k - 2)
                ring.tma_load(Recs, coords=(k, 0), iter=k, barrier=full, multicast=3)

    with sched:
        lm.cluster_sync()
        for k in lm.range(0, 2):
            if k <= n_tiles:
                lm.expect_tx(full, 128, iter=k)
        for k in lm.range(0, n_tiles + 1):
            lm.wait(full, iter=k)
            lm.copy(rec, ring[k])
            lm.fence_proxy()
            if k + 2 <= n_tiles:
                lm.expect_tx(full, 128, iter=k + 2)
            lm.arrive(empty, iter=k, cta=0)                   # expect-error: sync.cluster-exit
