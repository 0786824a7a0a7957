# BUG (sync.arrival-underflow): NVIDIA/Fuser PR #4524 ("consider all for-loops
# between circular buffer loop and slice stage position", 2025-05-27).
# nvFuser's warp-specialized persistent normalization with two independent
# compute warp groups (stage_slice_position: the circular-buffer stage is
# sliced over threadIdx.y) walks FOR i101 in 13 / FOR threadIdx.y in 2:
# stage s = threadIdx.y + 2 * i101 of a 6-deep ring, each stage 4 rows
# loaded by 1-D TMA.  When the row count does not divide the tiling, the
# load warp's arrive.expect_tx + TMA carry the OneDimTmaLoadExpectArrive
# predicate (stages past the last row are never loaded), but the compute
# warp groups' MBarrierWaitParity(T4_s[(threadIdx.y + 2 * i101) % 6], ...)
# was left unpredicated: the lowering looked only at the innermost loop
# and missed the threadIdx.y loop the stage slice adds.  A warp group whose
# stage past the end is waited on blocks forever on a phase no load will
# complete (the only earlier test with two compute warp groups had
# divisible splits).  cake reports the hang as the phase that never gets
# its arrival (docs/rules/sync.arrival-underflow.md: a hang a short count
# causes is reported there, not as a bare sync.deadlock).  The PR predicates the wait with i101 and threadIdx.y
# and checks that no expect-arrive predicate is left unpaired.
# Modelled: one CTA's 13 x 2 stages, n_stages of them holding rows
# (1 <= n_stages <= 26, a parameter); a load warp fills stage s of a
# 6-slot ring (full/empty barriers, the consumer's release per stage), two
# compute warp groups (one instance each) take stages g, g + 2, ...; each
# reads its 4 x 256 f32 rows, reduces them and stores the row results.
# Left out: the second (output) pass of the normalization and the
# per-row 1-D TMA split (one 4 x 256 box per stage).
# Fix: nvfuser_ws_two_wg_wait_parity_unpredicated_tail_fixed.cake.
# expect: sync.arrival-underflow
# may-also: sync.deadlock
@cake.schedule(target="sm_90a")
def nvfuser_ws_two_wg_wait_parity_unpredicated_tail(lm, X: LM.tma2d, Out: LM.gmem, n_stages: LM.i32):
    lm.assume(n_stages >= 1)
    lm.assume(n_stages <= 26)
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
        for i in lm.range(0, 13):
            for g in lm.range(0, 2):
                s = g + 2 * i
                if s < n_stages:                                     # OneDimTmaLoadExpectArrive predicate
                    lm.wait(empty, iter=s - 6)
                    xs.tma_load(X, coords=(4 * s, 0), iter=s, barrier=full)

    with compute:
        g = lm.instance()
        for i in lm.range(0, 13):
            s = g + 2 * i
            lm.wait(full, iter=s)                                    # expect-error: sync.arrival-underflow
            if s < n_stages:
                lm.copy(rows, xs[s])
                lm.fence_proxy()                                     # generic reads before the TMA refill
                lm.arrive(empty, iter=s)
                lm.reduce(red, rows, op="sum", axis=1)
                lm.copy(Out, red, coords=(4 * s, 0))
