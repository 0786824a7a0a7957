# Block-wide two-pass LayerNorm statistics (Apex/PyTorch layer_norm
# cuWelfordMuSigma2-style block reduction, two-pass variant): one row of
# 128 columns per CTA step, 4 warps; each warp reduces its 32 columns, the
# warp partials meet in shared scratch.  Variant with TWO scratch halves
# (red[w] for the mean, red[4 + w] for the variance) and only two
# __syncthreads per row: the mean pass's reads of red[0..3] are ordered
# before the next row's writes by the variance pass's barrier, and the
# variance reads of red[4..7] before the next row's variance writes by the
# next row's mean barrier (the trade of smem for barriers that block
# reductions make).  Single-scratch form: sm80_layernorm_two_pass_block.cake.
# expect: pass
@cake.schedule(target="sm_80")
def layernorm_two_pass_block(lm, X: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows >= 1)
    pool = lm.smem(1024)
    red  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=8)
    x    = lm.regs(shape=(1, 32), dtype=lm.f32)
    d    = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc  = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)

    team = lm.role(warps=[0, 1, 2, 3], group=1)
    bar  = lm.named_barrier(roles=[team])

    with team:
        w = lm.instance()
        for r in lm.range(0, rows):
            lm.copy(x, X, coords=(r, 32 * w))
            lm.copy(red[w], x)                      # pass 1: warp partial
            lm.sync(bar)
            lm.copy(acc, red[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red[i])
                lm.binary(acc, acc, oth, op="add")
            lm.binary(acc, acc, 0.0078125, op="mul")  # mean
            lm.binary(d, x, acc, op="sub")
            lm.binary(oth, d, d, op="mul")
            lm.copy(red[4 + w], oth)                # pass 2: squared deviations
            lm.sync(bar)
            lm.copy(acc, red[4])
            for i in lm.range(5, 8):
                lm.copy(oth, red[i])
                lm.binary(acc, acc, oth, op="add")
            lm.binary(acc, acc, 0.0078125, op="mul")
            lm.binary(acc, acc, 0.00001, op="add")
            lm.unary(acc, acc, op="rsqrt")
            lm.binary(d, d, acc, op="mul")
            lm.copy(Y, d, coords=(r, 32 * w))
