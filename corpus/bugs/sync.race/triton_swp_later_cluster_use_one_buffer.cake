# BUG (sync.race): the kernel Triton's software pipeliner emitted for
# triton-lang/triton PR #8139 ("Add extra buffer for pipelined uses in later
# clusters than loads", 2025-09-10; cherry-picked as facebookexperimental/
# triton PR #912; the `_useStage++ // extra buffer due to unusual execution
# order` in getDefUseStageDiff that PR #11786 later refines).  The repro:
#     for i in tl.range(0, N, num_stages=2):
#         out_idx = tl.load(arange_ptr + i + tl.arange(0, 1))
#         if always_true_but_not_constexpr:
#             tl.store(output_ptr + out_idx, i + 1)
# The load becomes a cp.async (ttg.async_copy_global_to_local) in stage 0,
# its use in stage 1; the conditional use is forced into the epilogue
# cluster (ScheduleLoops.cpp), a cluster AFTER the load's.  One stage apart
# gets one buffer (ttg.local_alloc 1x1xi32), which is enough only when the
# use of iteration i runs before the copy of iteration i + 1 in the loop
# body.  Here the body issues the copy of i + 1 into that one buffer first,
# then waits for the group of i (the group of i + 1 stays in flight) and
# local_loads "out_idx of i" from the same bytes: the read races with the
# in-flight cp.async of i + 1 and mostly returns i + 1's index (the PR
# shows [0, 1, 2, 3, 4, 5, 6, 8, 0, 9, ...] instead of [1, 2, ..., 17]);
# the copy of i + 1 itself is issued while that of i still writes the
# same bytes.
# Modelled: num_warps = 4 as one instance (Triton's membar orders the warps
# inside it), cuda:90 as in the TTGIR (cp.async, no TMA); the prologue
# copy of iteration 0; in the loop the predicated copy of i + 1, commit,
# wait(pending=1), the local_load, and the store as a register-to-global
# copy.  Left out: the scatter address of the store (data-dependent).
# Fix: triton_swp_later_cluster_use_one_buffer_fixed.cake (two buffers).
# expect: sync.race
@cake.schedule(target="sm_90a")
def triton_swp_later_cluster_use_single_buffer(lm, Idx: LM.gmem, Out: LM.gmem, N: LM.i32):
    lm.assume(N > 0)
    pool = lm.smem(128)
    idx  = pool.view(offset=0, shape=(1, 1), dtype=lm.i32, stages=1)
    v    = lm.regs(shape=(1, 1), dtype=lm.i32)

    cta = lm.role(warps=[0, 1, 2, 3])

    with cta:
        idx.cp_async(Idx, coords=(0, 0), iter=0)            # prologue: stage 0 of i = 0
        lm.cp_async_commit()
        for i in lm.range(0, N):
            if i + 1 < N:
                idx.cp_async(Idx, coords=(0, i + 1), iter=i + 1)   # stage 0 of i + 1
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)                     # the group of i is done
            lm.copy(v, idx[i])                              # epilogue cluster: local_load of i
            lm.copy(Out, v, coords=(0, i))                  # tl.store
        lm.cp_async_wait(pending=0)
