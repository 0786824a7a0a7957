# BUG (sync.race): PaddlePaddle/Paddle issue #56100, PR #56435 ("Bugfix,
# read-write race at fast_ln_fwd_kernel", 2023-08-18; paddle/phi/kernels/
# funcs/layer_norm_impl.cu.h).  fast_ln_fwd_kernel with WARPS_N > 1 (a row
# of feature_size >= 2048 spread over several warps) reduces the mean
# through shared memory: lane 0 of every warp stores its partial to
# smem[warp_m * WARPS_N + warp_n], __syncthreads(), the row's first thread
# sums the row's partials into smem[warp_m * WARPS_N], __syncthreads(),
# and every thread reads the mean from smem[warp_m * WARPS_N].  The
# variance reduction then stores its partials into the same entries with
# no barrier in between: the row's warp_n == 0 warp overwrites
# smem[warp_m * WARPS_N] with its variance partial while the row's other
# warps may still be reading the mean there ("some threads are reading smem
# at L274, and some are writing smem at L300 in parallel"; compute-sanitizer
# reports it).  The fix adds __syncthreads() before the variance partials
# are stored.
# Modelled: feature_size = 2048, so WARPS_N = 2 and WARPS_M = 2 (the
# launcher's `WARPS_N = feature_size / 1024`, `WARPS_M = 4 / WARPS_N`):
# four warps, each a one-warp instance, warp w = 2 * warp_m + warp_n;
# __syncthreads() a named barrier over them; smem[i] is slot i of a 4-slot
# view (lane 0's float stands for the slot); lm.reduce / lm.binary stand
# for the shuffles and the arithmetic.  The grid-stride row loop runs once
# (the launcher's grid is cdiv(rows, ROWS_PER_CTA)) and is written out once.
# Left out: gamma/beta, the vectorized loads and the column guard.
# Fix: paddle_fast_ln_var_partial_overwrites_mean_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def paddle_fast_ln_var_partial_overwrites_mean(lm, X: LM.gmem, Y: LM.gmem, Mean: LM.gmem, Var: LM.gmem):
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
        lm.copy(smem[w], part)                              # expect-error: sync.race
        lm.sync(cta)
        if w % 2 == 0:                                      # tidx % THREADS_PER_ROW == 0
            lm.copy(part, smem[w])
            lm.copy(oth, smem[w + 1])
            lm.binary(part, part, oth, op="add")
            lm.copy(smem[w], part)
        lm.sync(cta)
        lm.copy(mu, smem[2 * (w // 2)])                     # expect-error: sync.race
        lm.binary(mu, mu, 0.00048828125, op="mul")          # * rn
        lm.copy(Mean, mu, coords=(row, 0))
        # variance
        lm.reduce(part, x, op="sum", axis=0)
        lm.binary(part, part, mu, op="sub")
        lm.binary(part, part, part, op="mul")
        # BUG: no __syncthreads() before the variance partials reuse smem
        lm.copy(smem[w], part)                              # expect-error: sync.race
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
