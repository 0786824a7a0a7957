# LAYOUT layout.smem-limit (bad, symbolic): as good_smem_limit_bm_128 but
# BM may grow to 256: the gate finds a BM (e.g. BM = 232) for which the pool
# (1024*BM bytes) plus the 16 mbarriers exceed the 232448 bytes sm_90a
# allows per block.
# Fix: bound BM by 224, or use fewer stages.
# expect: layout.smem-limit

@cake.schedule(target="sm_90a")
def bad_smem_limit_bm_256(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 8)
    lm.assume(BM <= 256)
    lm.assume(BM % 8 == 0)
    pool   = lm.smem(8 * BM * 128)  # expect-error: layout.smem-limit
    smem_x = pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=8, swizzle="128B")
    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)
    part   = lm.regs(shape=(BM, 1), dtype=lm.f32)
    total  = lm.regs(shape=(BM, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=8)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * BM

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 8)
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
