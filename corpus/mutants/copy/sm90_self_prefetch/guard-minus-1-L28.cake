# mutant: guard-minus-1
# original: corpus/copy/sm90_self_prefetch.cake
# line: 28: if j + 1 < r_tiles:
# change: guard: `r_tiles` -> `r_tiles - 1`
# label: bad (sync.arrival-underflow, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), R in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 59 states; first violation: sync.arrival-underflow: phase 1 of full[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(full, iter=j)` (line 30) (R=144)
# expect-any: sync.arrival-underflow proxy.missing-fence
# One warpgroup that both issues its own TMA loads and consumes them (a
# single-role "TMA prefetch" loop, as in simple Triton-on-Hopper kernels):
# the load of tile j+1 is issued before tile j is processed.  The role is
# producer and consumer of `full`; no empty barrier is needed because the
# same instance reads slot j%2 (program order) before it issues the load
# that overwrites it two iterations later.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def colsum_self_prefetch(lm, X: LM.tma2d, Y: LM.gmem, R: LM.i32):
    lm.assume(R > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(1, 128), dtype=lm.f32)
    total  = lm.regs(shape=(1, 128), dtype=lm.f32)

    wg   = lm.role(warps=[0, 1, 2, 3])
    pipe = lm.pipeline(stages=2)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=pipe)

    r_tiles = lm.cdiv(R, 64)
    c0 = lm.block_idx(0) * 128

    with wg:
        lm.fill(total, 0.0)
        smem_x.tma_load(X, coords=(0, c0), iter=0, barrier=full)
        for j in lm.range(0, r_tiles):
            if j + 1 < r_tiles - 1:
                smem_x.tma_load(X, coords=((j + 1) * 64, c0), iter=j + 1, barrier=full)
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.reduce(part, x, op="sum", axis=0)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(0, c0))
