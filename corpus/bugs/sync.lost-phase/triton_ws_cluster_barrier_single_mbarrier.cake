# BUG (sync.lost-phase): triton-lang/triton PR #10669 ("[NVIDIA]
# Double-buffer synthetic cluster barriers", backported to release/3.8 as
# PR #11137 and to facebookexperimental/triton as PR #2573).  Inside a
# warp-specialized region a cluster barrier cannot be `barrier.cluster`
# (every thread of every CTA must arrive), so the NVIDIA lowering
# (ClusterOpsToLLVM.cpp) synthesizes it from ONE mbarrier per cluster
# barrier, initialized for numCTAs - 1 arrivals, plus a parity word next to
# it: at each rendezvous the partition arrives remotely
# (`mbarrier.arrive.shared::cluster`) on the mbarrier of every other CTA,
# then waits on its own mbarrier with the stored parity and flips it.
# A CTA that passes rendezvous k and reaches rendezvous k + 1 arrives on the
# peer's mbarrier again while the peer - whose own arrival for k let it
# pass - has not yet waited for k: the peer's mbarrier completes phase k and
# phase k + 1 before its wait on phase k looks, the parity is back to the
# value the wait takes for "not yet", and the delayed CTA misses the phase
# (hangs, or passes one rendezvous late).  The fix double-buffers the
# mbarrier: a modulo-four counter whose low bit selects the slot and whose
# high bit is that slot's parity, so a CTA can arrive for k + 1 on the
# other slot but cannot arrive for k + 2 before the peer arrived for k + 1,
# which it does only after its wait for k.
# Modelled: a 2x1 cluster, one partition (one warp) per CTA that runs
# n_sync rendezvous in a loop (the user's cluster barriers inside the
# warp-specialized region), each CTA's synthetic mbarrier one slot with
# init_count 1 (numCTAs - 1), the remote arrive `lm.arrive(..., cta=peer)`
# and the wait with implicit phases (stage=0: the n-th wait means phase n,
# as the parity word flips after each wait).  The kernel's mbarrier
# initialization is fenced by an lm.cluster_sync() first and the CTAs meet
# again before they exit (the cluster barriers the compiler inserts at
# kernel entry and exit, outside the warp-specialized region).  Left out:
# the work that the rendezvous order (any work: the wait itself is the bug).
# Fix: triton_ws_cluster_barrier_single_mbarrier_fixed.cake.
# expect: sync.lost-phase
# may-also: sync.deadlock sync.arrival-overflow sync.stale-phase
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def triton_ws_cluster_barrier_single_mbarrier(lm, n_sync: LM.i32):
    lm.assume(n_sync >= 1)
    part = lm.role(warps=[0])
    cbar = lm.barrier(count=1, prod=[part], cons=[part], init_count=1)

    rank = lm.cluster_rank()
    peer = 1 - rank

    with part:
        lm.cluster_sync()
        for k in lm.range(0, n_sync):
            lm.arrive(cbar, stage=0, cta=peer)  # mbarrier.arrive.shared::cluster on the peer
            lm.wait(cbar, stage=0)              # expect-error: sync.lost-phase
        lm.cluster_sync()
