# mutant: guard-minus-1
# original: corpus/basics/named_barrier_epilogue.cake
# line: 34: if t > 0:
# change: guard: `0` -> `-1`
# label: bad (sync.deadlock) by the explicit-state simulator (encoder/simulator.h), rows in {1, 144, 272}; block_idx 0 of grid_dim 1; 15 states; first violation: sync.deadlock: no instance can make progress: compute waits on y_empty (generation 0); store waits on y_full (generation 0) at `lm.sync(y_empty)` (line 35) (rows=1)
# expect-any: sync.deadlock
# Named barriers: lm.bar_arrive (producer side, no wait) + lm.sync (waiting
# side), as in CUTLASS's epilogue NamedBarrier handoff to a store warp and
# FA3's warpgroup scheduling barriers.
# A persistent elementwise kernel (y = relu(x), bf16): one compute
# warpgroup loads a 128x64 tile from global into registers, applies relu,
# writes the single smem staging tile, fences, and bar_arrive's y_full; a
# store warp bar.sync's y_full, TMA-stores the tile, waits for the store to
# finish reading smem, and bar_arrive's y_empty so the next tile may be
# written.  The store warp skips its last y_empty arrive (nobody syncs on
# it) and the compute warpgroup skips its first y_empty sync.
# Generation pairing: y_full gen t = (compute arrive t, store sync t);
# y_empty gen t = (store arrive t, compute sync at t+1).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def relu_store_warp(lm, X: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(16384)
    smem_y = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    store   = lm.role(warps=[4])
    y_full  = lm.named_barrier(roles=[compute, store])
    y_empty = lm.named_barrier(roles=[compute, store])

    n_tiles  = lm.cdiv(rows, 128)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with compute:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.copy(x, X, coords=(r0, 0))
            lm.unary(x, x, op="relu")
            if t > -1:
                lm.sync(y_empty)
            lm.copy(smem_y[0], x)
            lm.fence_proxy()
            lm.bar_arrive(y_full)

    with store:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.sync(y_full)
            smem_y.tma_store(Y, coords=(r0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            if t + 1 < my_tiles:
                lm.bar_arrive(y_empty)
