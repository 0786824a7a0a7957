# FIXED: triton_ws_leader_arrive_before_partition_sync.cake as triton-lang/
# triton PR #10035 fixes it: a bar.sync over the partition's warps is
# emitted before every mbarrier arrive, so the leader warp arrives on
# empty[k] only after every consumer warp has left its wait on ready[k];
# the producer's refill of k can no longer complete a phase that a
# lagging consumer warp has not yet observed.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_ws_partition_sync_before_leader_arrive(lm, K: LM.i32):
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
            lm.sync(part)                           # PR #10035: bar.sync before the arrive
            if lm.instance() == 0:                  # the leader warp's arrive
                lm.arrive(empty, iter=i)
