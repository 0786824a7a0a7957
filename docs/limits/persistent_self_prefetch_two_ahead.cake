# Reproducer (helper fp47, session 47): persistent_prologue_guard_on_trip_count.cake
# with K > 64 assumed and the prologue's guard dropped.  Was refused:
# "the K iteration at ring position 2 of tile 0 of wg differs when a K
# iteration is its tile's last, beyond operations that carry no counter" -
# the refill guard `k + 2 < k_tiles` makes the tile's last two K iterations
# differ from the grid's, and the one process both issues and consumes.
# Proved since helper tri47 (session 47): docs/z3.md "A self-prefetching
# persistent ring (helper tri47)"; no longer a limit (kept beside its
# guarded twin, which still is).
# expect: pass
@cake.schedule(target="sm_90a")
def prologue_guard(lm, X: LM.tma2d, Y: LM.gmem, n_tiles: LM.i32, K: LM.i32):
    lm.assume(n_tiles > 0)
    lm.assume(K > 64)
    pool = lm.smem(49152)
    xs   = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3)
    x    = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg   = lm.role(warps=[0, 1, 2, 3])
    pipe = lm.pipeline(stages=3)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=pipe)
    k_tiles = lm.cdiv(K, 64)
    with wg:
        for t in lm.range(0, n_tiles):
            base = t * k_tiles
            xs.tma_load(X, coords=(t * 64, 0), iter=base, barrier=full)
            xs.tma_load(X, coords=(t * 64, 64), iter=base + 1, barrier=full)
            for k in lm.range(0, k_tiles):
                it = base + k
                lm.wait(full, iter=it)
                lm.copy(x, xs[it])
                lm.fence_proxy()
                if k + 2 < k_tiles:
                    xs.tma_load(X, coords=(t * 64, (k + 2) * 64), iter=it + 2, barrier=full)
            lm.copy(Y, x, coords=(t * 64, 0))
