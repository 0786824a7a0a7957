# LAYOUT tma.dtype (bad): the second half is loaded into an f16 view through
# the same tensor X. A tensor parameter has one descriptor with one element
# type (bf16, from the first copy): the copy engine would move the bytes
# unchanged and the consumer would read bf16 bits as f16.
# Fix: declare smem_y as bf16 (or convert after the load).
# expect: tma.dtype
@cake.schedule(target="sm_90a")
def bad_tma_dtype_two_element_types(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_y = pool.view(offset=32768, shape=(128, 64), dtype=lm.f16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    y      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 128)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 128), iter=j, barrier=full)
            smem_y.tma_load(X, coords=(row0, j * 128 + 64), iter=j, barrier=full)  # expect-error: tma.dtype

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.copy(y, smem_y[j])
            lm.arrive(empty, iter=j)
            lm.binary(x, x, y, op="add")
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
