# Reproducer (helper hunt52, session 52): a correct nested software
# pipeline whose inner trip count is a parameter is checked, not proved.
# It is corpus/bugs/sync.race/iree_prefetch_nested_loop_prologue_write_no_
# barrier_fixed.cake (IREE's ROCDLPrefetchSharedMemoryCopy: an outer loop
# around a two-stage pipelined K loop over ONE LDS buffer per operand, with
# the prologue barrier of PR #22669) with the inner trip count `n_k >= 3` a
# parameter instead of 3.  IREE pipelines static trip counts only (the
# corpus file is proved, lap induction over `n_outer`), but the same loop
# nest with a dynamic K is what a persistent or split-reduction kernel
# writes.  `cake check --require-proof` says "checked: n_outer in
# {0,1,2,3}, n_k in {3,4}; proof: unknown (lm.copy(sa[0][16 * w:16 * w +
# 16, :], ra) at the tile loop before the K loop of waves[0] moves with the
# ring period)": the prologue's stage-named write's generation counts every
# earlier write of the slot, n_k per outer iteration, a function of the
# tile's ring start that the persistent-kernel proof refuses (docs/known-
# limits.md "A nested pipeline over one LDS buffer with a dynamic inner
# trip count").  Never a wrong verdict: without the prologue barrier it is
# sync.race at n_outer = 2, n_k = 3.
# expect: pass
@cake.schedule(target="sm_80")
def nested_prefetch_dynamic_inner_trip(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, n_outer: LM.i32, n_k: LM.i32):
    lm.assume(n_k >= 3)
    pool = lm.smem(8192)
    sa   = pool.view(offset=0, shape=(64, 32), dtype=lm.f16)
    sb   = pool.view(offset=4096, shape=(64, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(16, 32), dtype=lm.f16)
    rb   = lm.regs(shape=(16, 32), dtype=lm.f16)
    acc  = lm.regs(shape=(32, 32), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w  = lm.instance()
        wm = w // 2
        wn = w % 2
        lm.fill(acc, 0.0)
        for o in lm.range(0, n_outer):
            # prologue: read(0), write(0)
            lm.copy(ra, A, coords=(16 * w, 32 * n_k * o))
            lm.copy(rb, B, coords=(16 * w, 32 * n_k * o))
            lm.sync(block)                                # the prologue barrier (IREE PR #22669)
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            # kernel: k = 0, 1
            for k in lm.range(0, n_k - 1):
                lm.copy(ra, A, coords=(16 * w, 32 * n_k * o + 32 * (k + 1)))
                lm.copy(rb, B, coords=(16 * w, 32 * n_k * o + 32 * (k + 1)))
                lm.sync(block)
                lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
                lm.sync(block)
                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
                lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            # epilogue: compute(2)
            lm.sync(block)
            lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
        lm.copy(C, acc, coords=(32 * wm, 32 * wn))
