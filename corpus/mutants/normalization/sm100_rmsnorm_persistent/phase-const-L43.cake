# mutant: phase-const
# original: corpus/normalization/sm100_rmsnorm_persistent.cake
# line: 43: lm.wait(full, iter=it)
# change: `iter=it` -> `stage=it % 8, phase=0`
# label: bad (sync.lost-phase, sync.race, data.stale-read, sync.arrival-overflow) by the explicit-state simulator (encoder/simulator.h), rows in {1, 208, 240, 272, 496, 528}; block_idx 0 of grid_dim 1; 349127 states; first violation: sync.lost-phase: wg waits for phase 0 of full[0], but the slot already completed phase 1: the waiter is 1 phases behind at `lm.wait(full, stage=it % 8, phase=0)` (line 43) (rows=272)
# expect-any: sync.lost-phase sync.race data.stale-read sync.arrival-overflow
# Blackwell persistent RMSNorm, hidden size 1024: each 32x1024 row block is
# loaded as 4 chunks of 32x256 into a 2-deep ring of row blocks (8 slots:
# block b uses slots 4*(b%2) .. 4*(b%2)+3, one barrier slot per chunk).
# The warpgroup normalizes in place and TMA-stores each chunk; only after
# the stores of a row block have finished reading smem
# (tma_store_wait(pending=0)) does it release the block's chunks to the
# TMA warp (empty, iter=4*t+c).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def rmsnorm_1024_sm100(lm, X: LM.tma2d, W: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(131072)
    smem_x = pool.view(offset=0, shape=(32, 256), dtype=lm.bf16, stages=8)
    x      = lm.regs(shape=(32, 256), dtype=lm.f32)
    sq     = lm.regs(shape=(32, 256), dtype=lm.f32)
    w      = lm.regs(shape=(1, 256), dtype=lm.f32)
    ss     = lm.regs(shape=(32, 1), dtype=lm.f32)
    part   = lm.regs(shape=(32, 1), dtype=lm.f32)

    wg    = lm.role(warps=[0, 1, 2, 3])
    load  = lm.role(warps=[4])
    pipe  = lm.pipeline(stages=8)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    n_tiles  = lm.cdiv(rows, 32)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 32
            for c in lm.range(0, 4):
                it = 4 * t + c
                lm.wait(empty, iter=it - 8)
                smem_x.tma_load(X, coords=(r0, c * 256), iter=it, barrier=full)

    with wg:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 32
            lm.fill(ss, 0.0)
            for c in lm.range(0, 4):
                it = 4 * t + c
                lm.wait(full, stage=it % 8, phase=0)
                lm.copy(x, smem_x[it])
                lm.binary(sq, x, x, op="mul")
                lm.reduce(part, sq, op="sum", axis=1)
                lm.binary(ss, ss, part, op="add")
            lm.binary(ss, ss, 0.0009765625, op="mul")
            lm.binary(ss, ss, 0.000001, op="add")
            lm.unary(ss, ss, op="rsqrt")
            for c in lm.range(0, 4):
                it = 4 * t + c
                lm.copy(x, smem_x[it])
                lm.copy(w, W, coords=(0, c * 256))
                lm.binary(x, x, ss, op="mul")
                lm.binary(x, x, w, op="mul")
                lm.copy(smem_x[it], x)
                lm.fence_proxy()
                smem_x.tma_store(Y, coords=(r0, c * 256), iter=it)
                lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            for c in lm.range(0, 4):
                lm.arrive(empty, iter=4 * t + c)
