# GATE tma.inner-bytes (bad): per-row (scale, zero-point) pairs, two f32 per
# row, streamed with TMA: the innermost box dimension is 2 x 4 = 8 bytes,
# but TMA needs the innermost box extent to be a multiple of 16 bytes.
# (The reduction takes the max of each pair.)
# Fix: good_scale_quads_16_bytes.cake - pad the rows to 4 f32 (16 bytes),
# or load such narrow data with plain global loads.
# expect: tma.inner-bytes
@cake.schedule(target="sm_90a")
def scale_pairs_tma(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(2048)
    smem_x = pool.view(offset=0, shape=(128, 2), dtype=lm.f32, stages=2)  # expect-error: tma.inner-bytes
    x      = lm.regs(shape=(128, 2), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 2)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 2), iter=j, barrier=full)  # expect-error: tma.inner-bytes

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="max", axis=1)
            lm.binary(total, total, part, op="max")
        lm.copy(Y, total, coords=(row0, 0))
