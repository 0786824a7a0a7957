# FIXED: nvfuser_ws_two_wg_wait_parity_unpredicated_tail_two_params.cake
# with NVIDIA/Fuser PR #4524's predicate on the compute warp groups' wait.
# Proved since session 50: from i = lm.cdiv(n_stages, 2) on the guards
# turn every operation off, so the loops are read cut there (docs/z3.md
# "A loop's dead tail cut at a guard's threshold"); before, the guard's
# second parameter n_stages left it checked, not proved.  Before session 49
# its bounded check was *unknown*: a jointly solved covering value took
# n_iters = 1037 (docs/known-limits.md "A tied goal's value placed far
# from the base").
# expect: pass
@cake.schedule(target="sm_90a")
def nvfuser_ws_two_wg_wait_parity_unpredicated_tail_two_params_fixed(lm, X: LM.tma2d, Out: LM.gmem, n_stages: LM.i32, n_iters: LM.i32):
    lm.assume(n_stages >= 1)
    lm.assume(n_stages <= 2 * n_iters)
    pool = lm.smem(24576)
    xs   = pool.view(offset=0, shape=(4, 256), dtype=lm.f32, stages=6)
    rows = lm.regs(shape=(4, 256), dtype=lm.f32)
    red  = lm.regs(shape=(4, 1), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    load    = lm.role(warps=[8])

    ring  = lm.pipeline(stages=6)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=ring)

    with load:
        for i in lm.range(0, n_iters):
            for g in lm.range(0, 2):
                s = g + 2 * i
                if s < n_stages:                                     # OneDimTmaLoadExpectArrive predicate
                    lm.wait(empty, iter=s - 6)
                    xs.tma_load(X, coords=(4 * s, 0), iter=s, barrier=full)

    with compute:
        g = lm.instance()
        for i in lm.range(0, n_iters):
            s = g + 2 * i
            if s < n_stages:                                         # the fix: the wait is predicated too
                lm.wait(full, iter=s)
                lm.copy(rows, xs[s])
                lm.fence_proxy()                                     # generic reads before the TMA refill
                lm.arrive(empty, iter=s)
                lm.reduce(red, rows, op="sum", axis=1)
                lm.copy(Out, red, coords=(4 * s, 0))
