# FIXED form of paddle_fast_ln_var_partial_overwrites_mean.cake
# (PaddlePaddle/Paddle PR #56435): fast_ln_fwd_kernel calls
# __syncthreads() before the variance partials are stored, so every warp
# has read the mean from smem[warp_m * WARPS_N] before the row's first
# warp overwrites that entry.
# expect: pass
@cake.schedule(target="sm_80")
def paddle_fast_ln_var_partial_after_barrier_fixed(lm, X: LM.gmem, Y: LM.gmem, Mean: LM.gmem, Var: LM.gmem):
    pool = lm.smem(512)
    smem = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)   # smem[ROWS_PER_CTA * WARPS_N]
    x    = lm.regs(shape=(8, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)
    mu   = lm.regs(shape=(1, 32), dtype=lm.f32)
    var  = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()                                   # warp_m * WARPS_N + warp_n
        row = 2 * lm.block_idx(0) + w // 2                  # bidx * ROWS_PER_CTA + warp_m
        lm.copy(x, X, coords=(8 * row, 32 * (w % 2)))
        # mean
        lm.reduce(part, x, op="sum", axis=0)
        lm.copy(smem[w], part)
        lm.sync(cta)
        if w % 2 == 0:                                      # tidx % THREADS_PER_ROW == 0
            lm.copy(part, smem[w])
            lm.copy(oth, smem[w + 1])
            lm.binary(part, part, oth, op="add")
            lm.copy(smem[w], part)
        lm.sync(cta)
        lm.copy(mu, smem[2 * (w // 2)])
        lm.binary(mu, mu, 0.00048828125, op="mul")          # * rn
        lm.copy(Mean, mu, coords=(row, 0))
        # variance
        lm.reduce(part, x, op="sum", axis=0)
        lm.binary(part, part, mu, op="sub")
        lm.binary(part, part, part, op="mul")
        lm.sync(cta)                                        # the fix (PR #56435)
        lm.copy(smem[w], part)
        lm.sync(cta)
        if w % 2 == 0:
            lm.copy(part, smem[w])
            lm.copy(oth, smem[w + 1])
            lm.binary(part, part, oth, op="add")
            lm.copy(smem[w], part)
        lm.sync(cta)
        lm.copy(var, smem[2 * (w // 2)])
        lm.copy(Var, var, coords=(row, 0))
        lm.binary(x, x, mu[0:1, 0:1], op="sub")
        lm.copy(Y, x, coords=(8 * row, 32 * (w % 2)))
