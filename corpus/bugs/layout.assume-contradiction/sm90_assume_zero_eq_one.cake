# BUG (layout.assume-contradiction): a leftover `lm.assume(0 == 1)` (meant
# to disable the schedule while debugging) makes the assumptions
# unsatisfiable: every symbolic proof would hold vacuously and the model
# checker has no parameter values to run.  That is an error, never a
# warning followed by "proved".
# Fix: basics/assume_consistent.cake.
# expect: layout.assume-contradiction
@cake.schedule(target="sm_90a")
def ring_assume_zero_eq_one(lm, A: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    lm.assume(0 == 1)  # expect-error: layout.assume-contradiction
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")

    producer  = lm.role(warps=[0, 1, 2, 3])
    consumers = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
    with consumers:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.arrive(empty, iter=k)
