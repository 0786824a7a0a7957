# mutant: arrive-count-plus-1
# original: corpus/basics/three_consumer_instances.cake
# line: 35: lm.arrive(empty, iter=j)
# change: added `count=2`
# label: bad (sync.arrival-overflow, proxy.missing-fence, sync.lost-phase, sync.race) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 1733 states; first violation: sync.arrival-overflow: phase 0 of empty[0] gets 6 arrivals, but the barrier expects 3 (init_count): the extra ones complete a phase nobody meant to complete at `lm.arrive(empty, iter=j, count=2)` (line 35) (D=144)
# expect-any: sync.arrival-overflow proxy.missing-fence sync.lost-phase sync.race
# group=4 over 12 warps: three consumer instances (warpgroups), each owning
# 64 rows of a 192-row tile (row slices 64*i .. 64*i+64), as in FA3's
# 3-warpgroup configurations.  The empty barrier expects one release per
# instance: init_count=3.  TMA box of 192 rows (<= 256).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rowsum_three_wg(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0, shape=(192, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(64, 64), dtype=lm.f32)
    part   = lm.regs(shape=(64, 1), dtype=lm.f32)
    total  = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], group=4)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=3, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 192

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        r0 = 64 * lm.instance()
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j][r0:r0 + 64, :])
            lm.arrive(empty, iter=j, count=2)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0 + r0, 0))
