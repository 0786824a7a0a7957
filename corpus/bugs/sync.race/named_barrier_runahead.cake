# BUG (sync.race): named-barrier run-ahead.  The compute warpgroup writes
# the two 64-column halves of its 128x128 output tile through ONE staging
# slot: it writes half 0, bar_arrive's h0_full (bar.arrive does not wait)
# and immediately overwrites the slot with half 1 - while the store warp's
# TMA store of half 0 may still be reading it (or has not even started).
# Models: CUTLASS sm90 epilogue with a dedicated store warp and EpiTile
# subtiles (NamedBarrier arrive/sync handoff).
# Fix: named_barrier_runahead_fixed.cake - double-buffer the staging tile
# (stages=2), one slot per half.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def epilogue_subtile_runahead(lm, X: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(16384)
    smem_y = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
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
        lm.copy(smem_y[0], x1)  # expect-error: sync.race
        lm.fence_proxy()
        lm.bar_arrive(h1_full)

    with store:
        lm.sync(h0_full)
        smem_y.tma_store(Y, coords=(r0, 0), stage=0)  # expect-error: sync.race
        lm.tma_store_commit()
        lm.sync(h1_full)
        smem_y.tma_store(Y, coords=(r0, 64), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
