# GATE tma.box-extent (bad): a row-sum kernel "widened" to 512-row tiles:
# the TMA box is the slot shape, and a box dimension may be at most 256
# elements (cuTensorMapEncodeTiled boxDim), so a 512 x 32 box cannot be
# encoded.
# Fix: good_box_rows_256.cake (256-row tiles; or two 256-row loads).
# expect: tma.box-extent
@cake.schedule(target="sm_90a")
def rowsum_box_512(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0, shape=(512, 32), dtype=lm.bf16, stages=2)  # expect-error: tma.box-extent
    x      = lm.regs(shape=(512, 32), dtype=lm.f32)
    part   = lm.regs(shape=(512, 1), dtype=lm.f32)
    total  = lm.regs(shape=(512, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 32)
    row0 = lm.block_idx(0) * 512

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 32), iter=j, barrier=full)  # expect-error: tma.box-extent

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
