# The loop nest of iree_prefetch_nested_loop_prologue_write_no_barrier_fixed.cake
# (IREE's ROCDLPrefetchSharedMemoryCopy, iree-org/iree PR #22669's prologue
# barrier: an outer loop around a two-stage pipelined K loop over ONE LDS
# buffer - prologue read(0), barrier, write(0); read(k+1), barrier,
# compute(k), barrier, write(k+1); barrier, compute(n-1)) reduced to two
# waves, one operand tile and plain reads, with the inner trip count
# `n_k >= 3` a parameter instead of IREE's static 3 (what a persistent or
# split-reduction kernel writes).  Helper hunt52's reproducer (session 52,
# then docs/limits/nested_prefetch_dynamic_inner_trip.cake: checked, not
# proved); since session 52 (helper nested52, docs/z3.md "Session 52
# (helper nested52)") proved for every n_outer and n_k by the restart
# argument: the tile's global load before its first barrier and the store
# after the outer loop touch only registers and global memory (the headed
# restart form), and each wave's writes and read-backs of sa[0] alternate.
# The broken form without the prologue barrier is
# iree_prefetch_nested_loop_dynamic_k_prologue_no_barrier.cake.
# expect: pass
@cake.schedule(target="sm_80")
def iree_prefetch_nested_loop_dynamic_k_prologue_no_barrier_fixed(lm, A: LM.gmem, C: LM.gmem, n_outer: LM.i32, n_k: LM.i32):
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
