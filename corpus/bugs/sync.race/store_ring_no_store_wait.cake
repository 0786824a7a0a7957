# BUG (sync.race): a TMA store ring that never throttles.  Each tile is
# written into slot t%2 with st.shared while the TMA store issued from the
# same slot two tiles earlier may still be reading it: nothing retires that
# store group before the overwrite (only the final drain waits).
# Models: CUTLASS sm90 epilogue store pipeline without the
# producer_acquire (tma_store_wait<StoreStages-1>) step.
# Fix: basics/tma_store_ring.cake - tma_store_wait(pending=1) before
# writing the slot.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def scale_store_ring_unthrottled(lm, X: LM.gmem, Y: LM.tma2d, rows: LM.i32):
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
            lm.copy(smem_y[t], x)  # expect-error: sync.race
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(r0, 0), iter=t)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
