# Reproducer (helper fp47, session 47): a correct persistent single-role
# pipelined loop that the trip proof refuses.  Reduced from
# corpus/gemm/sm90_triton_persistent_tma_wgmma_pipelined.cake (Triton's
# persistent TMA + wgmma matmul, num_stages=3): per tile, a prologue issues
# ring steps 0 and 1 - step 1 only when the tile has two K steps (the
# pipeliner's predicate `k_tiles > 1`) - and K step k refills step k+2 after
# it has read step k.  `cake check --require-proof`: checked for the listed
# values, proof unknown: "lm.cdiv(K, 64) > 1 reads lm.cdiv(K, 64) outside
# t * lm.cdiv(K, 64) and not as the tile's ring end ..." - a per-tile
# prologue may read the ring start t * E_B but not E_B itself.
# Without the guard (K > 64 assumed): persistent_self_prefetch_two_ahead.cake.
# docs/known-limits.md "Correct kernels the persistent proof refuses (helper fp47)".
# Proved since helper tri47 (session 47): per outcome of the guard (the
# case K >= 2 is persistent_self_prefetch_two_ahead.cake); docs/z3.md "A
# self-prefetching persistent ring (helper tri47)". Kept as the record.
# expect: pass
@cake.schedule(target="sm_90a")
def prologue_guard(lm, X: LM.tma2d, Y: LM.gmem, n_tiles: LM.i32, K: LM.i32):
    lm.assume(n_tiles > 0)
    lm.assume(K > 0)
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
            if k_tiles > 1:
                xs.tma_load(X, coords=(t * 64, 64), iter=base + 1, barrier=full)
            for k in lm.range(0, k_tiles):
                it = base + k
                lm.wait(full, iter=it)
                lm.copy(x, xs[it])
                lm.fence_proxy()
                if k + 2 < k_tiles:
                    xs.tma_load(X, coords=(t * 64, (k + 2) * 64), iter=it + 2, barrier=full)
            lm.copy(Y, x, coords=(t * 64, 0))
