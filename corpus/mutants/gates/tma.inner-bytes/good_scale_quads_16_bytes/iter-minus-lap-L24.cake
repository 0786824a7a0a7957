# mutant: iter-minus-lap
# original: corpus/gates/tma.inner-bytes/good_scale_quads_16_bytes.cake
# line: 24: smem_x.tma_load(X, coords=(row0, j * 4), iter=j, barrier=full)
# change: iter: `j` -> `j - 2`
# label: bad (sync.arrival-underflow, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 5, 9, 13}; block_idx 0 of grid_dim 1; 54 states; first violation: sync.arrival-underflow: phase 1 of full[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(full, iter=j)` (line 29) (D=9)
# expect-any: sync.arrival-underflow proxy.missing-fence
# GATE tma.inner-bytes (good): rows padded to 4 f32 = 16 bytes.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def scale_quads_tma(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(4096)
    smem_x = pool.view(offset=0, shape=(128, 4), dtype=lm.f32, stages=2)
    x      = lm.regs(shape=(128, 4), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 4)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 4), iter=j - 2, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="max", axis=1)
            lm.binary(total, total, part, op="max")
        lm.copy(Y, total, coords=(row0, 0))
