# RESPELLING of corpus/bugs/sync.lost-phase/triton_ws_cluster_barrier_single_mbarrier_fixed.cake
# (triton-lang/triton PR #10669): as _r1, two slots addressed with
# stage=(r - 1) % 2 and implicit phases.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def cluster_barrier_fixed(lm, rounds: LM.i32):
    lm.assume(rounds > 0)
    w = lm.role(warps=[0])
    mbar = lm.barrier(count=2, prod=[w], cons=[w], init_count=1)
    me = lm.cluster_rank()
    other = (me + 1) % 2
    with w:
        lm.cluster_sync()
        for r in lm.range(1, rounds + 1):
            lm.arrive(mbar, stage=(r - 1) % 2, cta=other)
            lm.wait(mbar, stage=(r - 1) % 2)
        lm.cluster_sync()
