# mutant: iter-minus-lap
# original: corpus/gates/tma.swizzle-span/good_128_byte_rows_128b_swizzle.cake
# line: 30: lm.wait(full, iter=j)
# change: iter: `j` -> `j - 2`
# label: bad (data.stale-read, sync.race, sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 74 states; first violation: data.stale-read: red reads smem_x[0] bytes [0, 8192) (for index 0) but nothing was written there yet at `lm.copy(x, smem_x[j])` (line 31) (D=1)
# expect-any: data.stale-read sync.race sync.async-at-exit
# GATE tma.swizzle-span (good): 64 x 64 bf16 boxes: 128-byte rows, exactly
# the 128B swizzle span.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rowsum_swizzle_span_good(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(16384)
    smem_x = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(64, 64), dtype=lm.f32)
    part   = lm.regs(shape=(64, 1), dtype=lm.f32)
    total  = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 64

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j - 2)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
