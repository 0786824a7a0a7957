# LAYOUT tma.box-extent (bad, symbolic): as good_tma_box_rows_bounded
# without the bound BM <= 256: for BM = 320 (say) the box has 320 rows, more
# than a TMA box dimension may (256).
# Fix: lm.assume(BM <= 256), or split the tile into two boxes.
# expect: tma.box-extent
# may-also: regs.fragment

@cake.schedule(target="sm_90a")
def bad_tma_box_rows_unbounded(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 64)
    lm.assume(BM % 64 == 0)
    lm.assume(BM <= 512)
    pool   = lm.smem(2 * BM * 128)
    smem_x = pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=2, swizzle="128B")  # expect-error: tma.box-extent
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
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)  # expect-error: tma.box-extent

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
