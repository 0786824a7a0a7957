# LAYOUT layout.view-outside-pool (bad, symbolic): as
# good_view_outside_pool_bm_bounded, but the upper bound BM <= 128 is
# missing. The gate returns a counterexample with a concrete BM (e.g. BM =
# 192: the ring ends at byte 98304 of a 32768-byte pool). The unbounded BM
# also breaks the TMA box limit (<= 256 rows) and the register budget of the
# reducing warpgroup for larger values.
# Fix: lm.assume(BM <= 128) (or a bigger pool).
# expect: layout.view-outside-pool
# may-also: tma.box-extent regs.fragment

@cake.schedule(target="sm_90a")
def bad_view_outside_pool_bm_unbounded(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 64)
    lm.assume(BM % 64 == 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=2, swizzle="128B")  # expect-error: layout.view-outside-pool
    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)
    part   = lm.regs(shape=(BM, 1), dtype=lm.f32)
    total  = lm.regs(shape=(BM, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * BM

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
