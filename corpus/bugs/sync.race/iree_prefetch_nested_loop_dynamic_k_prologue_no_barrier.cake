# Broken form of iree_prefetch_nested_loop_dynamic_k_prologue_no_barrier_fixed.cake:
# iree-org/iree issue #22468's bug (fixed by PR #22669, again for nested
# loops by PR #22868) in the nested pipeline with a dynamic inner trip count
# `n_k >= 3`: without the prologue barrier the prologue's write(0) of outer
# iteration o + 1 races the epilogue's LDS read of iteration o by the other
# wave (sync.race at n_outer = 2, n_k = 3; one outer iteration is clean).
# The restart argument refuses it: a write to shared memory before the
# tile's first barrier is no register code before the cut (docs/z3.md
# "Session 52 (helper nested52)").
# expect: sync.race
@cake.schedule(target="sm_80")
def iree_prefetch_nested_loop_dynamic_k_prologue_no_barrier(lm, A: LM.gmem, C: LM.gmem, n_outer: LM.i32, n_k: LM.i32):
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
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)     # expect-error: sync.race
            for k in lm.range(0, n_k - 1):
                lm.copy(ra, A, coords=(16 * w, 32 * (k + 1)))
                lm.sync(block)
                lm.copy(x, sa[0])
                lm.sync(block)
                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.sync(block)
            lm.copy(x, sa[0])
        lm.copy(C, x, coords=(0, 32 * w))
