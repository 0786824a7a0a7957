# FIXED form of triton_ws_cluster_barrier_single_mbarrier.cake
# (triton-lang/triton PR #10669): the synthetic cluster barrier has two
# mbarriers per CTA; rendezvous k uses slot k % 2 with phase k // 2 (the
# low bit of the modulo-four counter selects the slot, the high bit is the
# slot's parity).  A CTA that passed rendezvous k arrives for k + 1 on the
# other slot, and cannot arrive for k + 2 on this one before the peer
# arrived for k + 1, which the peer does only after its wait for k.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def triton_ws_cluster_barrier_double_buffered(lm, n_sync: LM.i32):
    lm.assume(n_sync >= 1)
    part = lm.role(warps=[0])
    cbar = lm.barrier(count=2, prod=[part], cons=[part], init_count=1)

    rank = lm.cluster_rank()
    peer = 1 - rank

    with part:
        lm.cluster_sync()
        for k in lm.range(0, n_sync):
            lm.arrive(cbar, iter=k, cta=peer)   # slot k % 2, phase k // 2
            lm.wait(cbar, iter=k)
        lm.cluster_sync()
