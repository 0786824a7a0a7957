# mutant: drop-commit
# original: corpus/basics/tma_store_ring.cake
# line: 30: lm.tma_store_commit()
# change: deleted `lm.tma_store_commit()`
# label: bad (sync.async-at-exit, sync.race) by the explicit-state simulator (encoder/simulator.h), rows in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 70 states; first violation: sync.async-at-exit: wg exits while its TMA store (never committed) still accesses shared memory (smem_y[0] bytes [0, 16384): no lm.tma_store_wait(pending=0) before exit) at `smem_y.tma_store(Y, coords=(r0, 0), iter=t)` (line 29) (rows=1)
# expect-any: sync.async-at-exit sync.race
# TMA store ring: a 2-slot smem staging ring drained by bulk-async TMA
# stores, throttled with tma_store_commit / tma_store_wait(pending=1)
# (CUTLASS sm90 epilogue StoreStages=2, DeepGEMM output path).
# Persistent grid-stride loop over 64-row tiles: y = 2 * x.
# Before writing slot t%2 the warpgroup waits until at most one store group
# is in flight, i.e. the store of tile t-2 (same slot) has finished reading
# smem; before exit it drains all groups with pending=0.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def scale_store_ring(lm, X: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(32768)
    smem_y = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)

    wg = lm.role(warps=[0, 1, 2, 3])

    n_tiles  = lm.cdiv(rows, 64)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with wg:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 64
            lm.copy(x, X, coords=(r0, 0))
            lm.binary(x, x, 2.0, op="mul")
            lm.tma_store_wait(pending=1)
            lm.copy(smem_y[t], x)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(r0, 0), iter=t)
        lm.tma_store_wait(pending=0)
