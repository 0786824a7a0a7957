# BUG (sync.race): tile-ai/tilelang issue #2556 ("tl.ThreadSync silently
# drops a required __syncthreads() when the active-thread count isn't a
# multiple of 32", 2026-07-08), fixed by PR #2679 ("Reject unsafe
# non-warp-multiple partial thread sync").  A 64-thread kernel
# (threads=64, two warps) with a tail guard:
#     if tx < 48:
#         S[tx] = T.float32(1)
#         acc[0] += S[47 - tx]        # the partner thread's element
# The thread_storage_sync planner decides a barrier is required between the
# write and the cross-thread read and, the guard being a clean `tx < 48`,
# lowers it as a partial barrier over the 48 participating threads; since
# bar.sync needs a warp-multiple count, ProcessSharedSync returned an empty
# statement (`if (thread_count % 32 != 0) return Stmt();`): the barrier
# vanished and the emitted kernel races (wrong, nondeterministic sums).
# Threads 0..31 (warp 0) read S[47..16], half of which warp 1 writes;
# threads 32..47 (warp 1) read S[15..0], which warp 0 writes.
# Modelled: the two warps each their own instance (warp 1 with its 16
# active lanes: columns 32..47); S as one 64-float row; the reads go to
# registers, then each thread stores its sum (Out[tx]).
# Fix: tilelang_threadsync_partial_48_threads_dropped_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def tilelang_threadsync_partial_48_dropped(lm, Out: LM.gmem):
    pool = lm.smem(256)
    s    = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=1)
    ones = lm.regs(shape=(1, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    ones16 = lm.regs(shape=(1, 16), dtype=lm.f32)
    part16 = lm.regs(shape=(1, 16), dtype=lm.f32)

    warps = lm.role(warps=[0, 1], group=1)

    with warps:
        if lm.instance() == 0:
            lm.fill(ones, 1.0)
            lm.copy(s[0][0:1, 0:32], ones)          # S[tx] = 1, tx 0..31
            lm.copy(part, s[0][0:1, 16:48])         # S[47 - tx]
            lm.copy(Out, part, coords=(0, 0))
        else:
            lm.fill(ones16, 1.0)
            lm.copy(s[0][0:1, 32:48], ones16)       # S[tx] = 1, tx 32..47
            lm.copy(part16, s[0][0:1, 0:16])        # S[47 - tx]
            lm.copy(Out, part16, coords=(0, 32))
