# BUG (sync.race): nvFuser (csarofeen/pytorch, the TorchScript CUDA fuser),
# circular-buffered cp.async loops: issue csarofeen/pytorch #2463, found
# in the discussion of PR #2457 ("Temporarily disable cp.async.cg for
# now": mismatches on a few elements of a row), fixed by PR #2470 ("Fix
# cp.async barrier").  The generated loop was
#     prolog:    for i < stage - 1: cp.async; commit
#                wait(stage - 2)
#     main loop: for i: cp.async (tile i + stage - 1); compute(i);
#                       wait(stage - 2); commit
# The commit of the main loop comes after its wait, so the wait counts one
# group fewer than it should: at the end of iteration i only group i - 1's
# worth of copies is guaranteed (in iteration 0 the wait completes nothing
# new), and compute(i + 1) reads a stage whose cp.async may still be
# writing it.  Fix (PR #2470, the kernel of FusionCpAsyncCommitWait in
# its description): commit right after the cp.async, before the compute,
# so wait(stage - 2) at the end of iteration i completes group i + 1.
# Written in CAKE IR: the test's shape, 8 stages (7 prefetched, wait 6);
# one role of 4 warps as one instance (the CTA: the __syncthreads after
# the wait is the instance's own synchronization, which lowering inserts
# after a cp.async wait); the copy of the tile i + 7 is predicated off
# past the end (nvFuser's predicate; the commit stays unconditional, an
# empty group); compute = the smem -> register -> global copy of the test
# (T0 -> T2 (smem, cp.async) -> T1).
# Fix: nvfuser_cp_async_commit_after_wait_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def nvfuser_cp_async_commit_after_wait(lm, T0: LM.gmem, T1: LM.gmem, n: LM.i32):
    lm.assume(n >= 7)
    pool = lm.smem(65536)
    t2   = pool.view(offset=0, shape=(64, 64), dtype=lm.f16, stages=8)
    frag = lm.regs(shape=(64, 64), dtype=lm.f16)

    cta = lm.role(warps=[0, 1, 2, 3])

    with cta:
        for i in lm.range(0, 7):
            t2.cp_async(T0, coords=(i * 64, 0), iter=i)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=6)
        for i in lm.range(0, n):
            if i + 7 < n:
                t2.cp_async(T0, coords=((i + 7) * 64, 0), iter=i + 7)
            lm.copy(frag, t2[i])                                         # expect-error: sync.race
            lm.copy(T1, frag, coords=(i * 64, 0))
            lm.cp_async_wait(pending=6)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
