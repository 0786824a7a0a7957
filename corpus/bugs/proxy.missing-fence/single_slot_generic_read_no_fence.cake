# BUG (proxy.missing-fence): write-after-read across proxies.  The
# consumer warpgroup reads the TMA-filled tile with ordinary loads
# (lm.copy: ld.shared, the generic proxy), then releases the slot; the
# producer's next TMA load refills it (cp.async.bulk.tensor: the async
# proxy).  The mbarrier hand-off orders the two in time, but the PTX memory
# model orders accesses of different proxies only through a proxy fence
# (fence.proxy.async): without lm.fence_proxy() between the reads and the
# release, the TMA write may overtake reads still in flight.  The same
# holds for every generic-proxy access the async proxy writes over.
# Models: basics/derived_phase_single_slot.cake.
# Fix: that file - lm.fence_proxy() after the reads, before the release.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def single_slot_handoff_no_fence(lm, X: LM.tma2d, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(16384)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=1)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    mx     = lm.regs(shape=(64, 1), dtype=lm.f32)

    load     = lm.role(warps=[0])
    wg       = lm.role(warps=[4, 5, 6, 7])
    ready    = lm.barrier(count=1, prod=[load], cons=[wg], init_count=1)
    consumed = lm.barrier(count=1, prod=[wg], cons=[load], init_count=1)

    n_tiles = lm.cdiv(rows, 64)

    with load:
        for t in lm.range(0, n_tiles):
            if t > 0:
                lm.wait(consumed, stage=0)
            smem_x.tma_load(X, coords=(t * 64, 0), stage=0, barrier=ready)  # expect-error: proxy.missing-fence

    with wg:
        for t in lm.range(0, n_tiles):
            lm.wait(ready, stage=0)
            lm.copy(x, smem_x[0])
            lm.arrive(consumed, stage=0)
            lm.reduce(mx, x, op="max", axis=1)
            lm.copy(Y, mx, coords=(t * 64, 0))
