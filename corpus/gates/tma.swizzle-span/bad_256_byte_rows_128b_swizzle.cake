# GATE tma.swizzle-span (bad): 64 x 128 bf16 tiles (256-byte rows) loaded
# with 128B swizzle.  With a swizzled layout the innermost box row may not
# exceed the swizzle span (128 bytes); hdim-128 kernels split such tiles
# into two 64-column boxes (FA3 / CUTLASS do exactly that).
# Fix: good_128_byte_rows_128b_swizzle.cake (64-column boxes).
# expect: tma.swizzle-span
@cake.schedule(target="sm_90a")
def rowsum_swizzle_span_bad(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2, swizzle="128B")  # expect-error: tma.swizzle-span
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(64, 1), dtype=lm.f32)
    total  = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 128)
    row0 = lm.block_idx(0) * 64

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 128), iter=j, barrier=full)  # expect-error: tma.swizzle-span

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
