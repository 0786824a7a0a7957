# Reproducer (helper hunt52, session 52): a correct nested software
# pipeline whose inner trip count is a parameter is checked, not proved.
# It is the loop nest of corpus/bugs/sync.race/iree_prefetch_nested_loop_
# prologue_write_no_barrier_fixed.cake (IREE's ROCDLPrefetchSharedMemoryCopy:
# an outer loop around a two-stage pipelined K loop over ONE LDS buffer -
# prologue read(0), barrier (PR #22669), write(0); read(k+1), barrier,
# compute(k), barrier, write(k+1); barrier, compute(n-1)) reduced to two
# waves, one operand tile and plain reads, with the inner trip count
# `n_k >= 3` a parameter instead of IREE's static 3.  The corpus file is
# proved (lap induction over `n_outer`); the same loop nest with a dynamic
# K is what a persistent or split-reduction kernel writes.
# `cake check --require-proof` says "checked: n_outer in {0,1,2,3}, n_k in
# {3,4}; proof: unknown (lm.copy(sa[0][16 * w:16 * w + 16, :], ra) at the
# tile loop before the K loop of waves[0] moves with the ring period)": the
# prologue's stage-named write's generation counts every earlier write of
# the slot, n_k per outer iteration, a function of the tile's ring start
# that the persistent-kernel proof refuses (docs/known-limits.md "A nested
# pipeline over one LDS buffer with a dynamic inner trip count").  Never a
# wrong verdict: without the prologue barrier it is sync.race at
# n_outer = 2, n_k = 3.
# expect: pass
@cake.schedule(target="sm_80")
def nested_prefetch_dynamic_inner_trip(lm, A: LM.gmem, C: LM.gmem, n_outer: LM.i32, n_k: LM.i32):
    lm.assume(n_k >= 3)
    pool = lm.smem(2048)
    sa   = pool.view(offset=0, shape=(32, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(16, 32), dtype=lm.f16)
    x    = lm.regs(shape=(32, 32), dtype=lm.f16)

    waves = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        for o in lm.range(0, n_outer):
            lm.copy(ra, A, coords=(16 * w, 0))
            lm.sync(block)
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            for k in lm.range(0, n_k - 1):
                lm.copy(ra, A, coords=(16 * w, 32 * (k + 1)))
                lm.sync(block)
                lm.copy(x, sa[0])
                lm.sync(block)
                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.sync(block)
            lm.copy(x, sa[0])
        lm.copy(C, x, coords=(0, 32 * w))
