# BUG (sync.race): the __syncthreads between the mean reads and the
# variance-pass writes of the shared scratch is dropped: a fast warp
# overwrites red[w] with its squared deviations while a slow warp still
# reads it for the mean.  Fixed form:
# corpus/normalization/sm80_layernorm_two_pass_block.cake.
# Block-wide two-pass LayerNorm statistics (Apex/PyTorch layer_norm
# cuWelfordMuSigma2-style block reduction, two-pass variant): one row of
# 128 columns per CTA step, 4 warps; each warp reduces its 32 columns, the
# warp partials meet in ONE shared scratch (red[w]) that is reused for
# both passes: mean pass, __syncthreads, every warp reads all 4 partials,
# __syncthreads (the scratch is about to be overwritten), variance pass,
# __syncthreads, every warp reads all 4, __syncthreads before the next row.
# expect: sync.race
@cake.schedule(target="sm_80")
def layernorm_two_pass_block(lm, X: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows >= 1)
    pool = lm.smem(512)
    red  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
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
            lm.copy(red[w], oth)                    # pass 2: squared deviations
            lm.sync(bar)
            lm.copy(acc, red[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red[i])
                lm.binary(acc, acc, oth, op="add")
            lm.binary(acc, acc, 0.0078125, op="mul")
            lm.binary(acc, acc, 0.00001, op="add")
            lm.unary(acc, acc, op="rsqrt")
            lm.binary(d, d, acc, op="mul")
            lm.copy(Y, d, coords=(r, 32 * w))
            lm.sync(bar)                            # next row reuses red
