# FIXED: tilelang_threadsync_partial_48_threads_dropped.cake (tile-ai/
# tilelang issue #2556) with the barrier that tl.ThreadSync's own planner
# required between S[tx] = 1 and the partner read S[47 - tx], lowered as
# the issue's suggested fix lowers it: where a partial bar.sync over the
# 48 participating threads is impossible (not a warp multiple), fall back
# to the CTA-wide barrier the full-extent branch already emits
# (thread_storage_sync.cc) instead of `return Stmt();`.  Here the CTA is
# the two warps, one barrier over both.  (The merged fix, PR #2679, turns
# the silent drop into a compile error asking for a warp-multiple guard.)
# expect: pass
@cake.schedule(target="sm_80")
def tilelang_threadsync_partial_48_cta_barrier(lm, Out: LM.gmem):
    pool = lm.smem(256)
    s    = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=1)
    ones = lm.regs(shape=(1, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    ones16 = lm.regs(shape=(1, 16), dtype=lm.f32)
    part16 = lm.regs(shape=(1, 16), dtype=lm.f32)

    warps = lm.role(warps=[0, 1], group=1)
    cta_sync = lm.named_barrier(roles=[warps])

    with warps:
        if lm.instance() == 0:
            lm.fill(ones, 1.0)
            lm.copy(s[0][0:1, 0:32], ones)          # S[tx] = 1, tx 0..31
            lm.sync(cta_sync)
            lm.copy(part, s[0][0:1, 16:48])         # S[47 - tx]
            lm.copy(Out, part, coords=(0, 0))
        else:
            lm.fill(ones16, 1.0)
            lm.copy(s[0][0:1, 32:48], ones16)       # S[tx] = 1, tx 32..47
            lm.sync(cta_sync)
            lm.copy(part16, s[0][0:1, 0:16])        # S[47 - tx]
            lm.copy(Out, part16, coords=(0, 32))
