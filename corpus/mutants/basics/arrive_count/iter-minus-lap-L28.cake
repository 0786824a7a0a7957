# mutant: iter-minus-lap
# original: corpus/basics/arrive_count.cake
# line: 28: lm.wait(empty, iter=j - 2)
# change: iter: `j - 2` -> `j - 4`
# label: bad (sync.arrival-overflow, sync.lost-phase, sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 104 states; first violation: sync.arrival-overflow: load arrives on full[0] after all 1 arrivals of its phase 0 came (it still waits for 32768 transaction bytes) at `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)` (line 29) (D=144)
# expect-any: sync.arrival-overflow sync.lost-phase sync.race data.stale-read proxy.missing-fence
# lm.arrive(..., count=n): one elected thread of an instance contributes n
# arrivals.  Here a single consumer warpgroup does the work of a 2-way
# consumer pair (it reads both 64-row halves of the slot) and releases the
# slot with count=2 on an empty barrier that was sized for two releasers
# (init_count=2), so the producer code is unchanged.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rowsum_arrive_count(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(64, 64), dtype=lm.f32)
    part   = lm.regs(shape=(64, 1), dtype=lm.f32)
    top    = lm.regs(shape=(64, 1), dtype=lm.f32)
    bot    = lm.regs(shape=(64, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=2, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 4)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(top, 0.0)
        lm.fill(bot, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j][0:64, :])
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(top, top, part, op="add")
            lm.copy(x, smem_x[j][64:128, :])
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(bot, bot, part, op="add")
            lm.arrive(empty, iter=j, count=2)
        lm.copy(Y, top, coords=(row0, 0))
        lm.copy(Y, bot, coords=(row0 + 64, 0))
