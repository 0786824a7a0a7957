# BUG (sync.lost-phase): the code Triton emitted for an mbarrier ring
# between two warp-specialized partitions before triton-lang/triton PR
# #10035 ("[nvidia] Always insert bar sync before all mbarrier arrives",
# 2026-04-15).  The PR's example (Gluon):
#     # producer                              # consumer
#     idx, phase = 0, 1                       idx, phase = 0, 0
#     for i in range(K):                      for i in range(K):
#         mbarrier.wait(empty_bars[idx], phase)    mbarrier.wait(ready_bars[idx], phase)
#         arrive(ready_bars[idx])                   arrive(empty_bars[idx])
#         idx, phase = advance(...)                 idx, phase = advance(...)
# An mbarrier arrive is code-generated for ONE leader warp of the
# partition, and the only bar.sync was the one emitted before the wait.
# The consumer's leader warp leaves the wait loop on ready[k], arrives on
# empty[k] and loops back to that bar.sync while the other consumer warps
# are still polling ready[k]; the producer, which was waiting for k to be
# consumed, refills k and arrives on ready[k] again: its phase count moves
# two past the one the lagging warps poll, the parity they test is the
# same again, and they poll forever (SYNCS.TRY_WAIT on what is now the
# next phase) - the partitions deadlock.
# Modelled: a 2-buffer ring, the producer partition one warp, the consumer
# partition four warps (each its own instance: the arrive is the leader
# warp's alone, the bar.sync before the wait is a named barrier over the
# four), arrive count 1 on both barriers.  No data moves through the ring,
# as in the PR's example.
# Fix: triton_ws_leader_arrive_before_partition_sync_fixed.cake.
# expect: sync.lost-phase
@cake.schedule(target="sm_90a")
def triton_ws_leader_arrive_before_partition_sync(lm, K: LM.i32):
    lm.assume(K > 0)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7], group=1)
    pipe  = lm.pipeline(stages=2)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    ready = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    part  = lm.named_barrier(roles=[consumer])

    with producer:
        for i in lm.range(0, K):
            lm.wait(empty, iter=i - 2)              # phase starts at 1: the first lap passes
            lm.arrive(ready, iter=i)

    with consumer:
        for i in lm.range(0, K):
            lm.sync(part)                           # the bar.sync emitted before the wait
            lm.wait(ready, iter=i)
            if lm.instance() == 0:                  # the leader warp's arrive
                lm.arrive(empty, iter=i)
