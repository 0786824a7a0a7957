# RESPELLING of corpus/bugs/sync.lost-phase/triton_ws_cluster_barrier_single_mbarrier.cake
# (triton-lang/triton PR #10669): the peer as (rank + 1) % 2, the one-slot
# barrier addressed with iter=k (phase k), the loop as a range with a
# shifted origin.
# expect: sync.lost-phase
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def cluster_barrier(lm, rounds: LM.i32):
    lm.assume(rounds > 0)
    w = lm.role(warps=[0])
    mbar = lm.barrier(count=1, prod=[w], cons=[w], init_count=1)
    me = lm.cluster_rank()
    other = (me + 1) % 2
    with w:
        lm.cluster_sync()
        for r in lm.range(1, rounds + 1):
            lm.arrive(mbar, iter=r - 1, cta=other)
            lm.wait(mbar, iter=r - 1)              # expect-error: sync.lost-phase
        lm.cluster_sync()
