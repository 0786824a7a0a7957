# mutant: drop-named-barrier
# original: corpus/bugs/sync.race/named_barrier_runahead_fixed.cake
# line: 37: lm.sync(h1_full)
# change: deleted `lm.sync(h1_full)`
# label: bad (data.stale-read, sync.race) by the explicit-state simulator (encoder/simulator.h), rows = 1; block_idx 0 of grid_dim 1; 24 states; first violation: data.stale-read: store reads smem_y[1] bytes [16384, 32768) (for index 1) but nothing was written there yet at `smem_y.tma_store(Y, coords=(r0, 64), stage=1)` (line 37) (rows=1)
# expect-any: data.stale-read sync.race
# FIXED version of named_barrier_runahead.cake: the two output halves go
# through two staging slots, so bar_arrive may run ahead - the compute
# warpgroup never writes a slot that a TMA store can still be reading.
# (Each named barrier is used for exactly one generation.)
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def epilogue_subtile_double_buffered(lm, X: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(32768)
    smem_y = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x0     = lm.regs(shape=(128, 64), dtype=lm.f32)
    x1     = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    store   = lm.role(warps=[4])
    h0_full = lm.named_barrier(roles=[compute, store])
    h1_full = lm.named_barrier(roles=[compute, store])

    r0 = lm.block_idx(0) * 128

    with compute:
        lm.copy(x0, X, coords=(r0, 0))
        lm.copy(x1, X, coords=(r0, 64))
        lm.unary(x0, x0, op="relu")
        lm.unary(x1, x1, op="relu")
        lm.copy(smem_y[0], x0)
        lm.fence_proxy()
        lm.bar_arrive(h0_full)
        lm.copy(smem_y[1], x1)
        lm.fence_proxy()
        lm.bar_arrive(h1_full)

    with store:
        lm.sync(h0_full)
        smem_y.tma_store(Y, coords=(r0, 0), stage=0)
        lm.tma_store_commit()
        smem_y.tma_store(Y, coords=(r0, 64), stage=1)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
