# BUG (sync.arrival-underflow): the one-slot hand-off of
# basics/single_slot_iter_shift.cake with its first release guarded away
# ("tile 0 needs no release").  Arrivals land in the slot's current phase,
# so the count is short where it matters: the producer's wait for phase 0
# (iter=t - 1 at t = 1) needs the consumer's release of tile 0, which never
# comes, and the consumer waits for tile 1: the kernel hangs for every
# rows > 64.  Unlike the shifted annotation, this is what runs: an error,
# with the hang as its trace.
# Models: basics/single_slot_iter_shift.cake.
# Fix: that file - release every tile.
# expect: sync.arrival-underflow
# may-also: sync.deadlock
@cake.schedule(target="sm_90a")
def single_slot_first_release_skipped(lm, X: LM.tma2d, Y: LM.gmem, rows: LM.i32):
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
            lm.wait(consumed, iter=t - 1)  # expect-error: sync.arrival-underflow
            smem_x.tma_load(X, coords=(t * 64, 0), stage=0, barrier=ready)

    with wg:
        for t in lm.range(0, n_tiles):
            lm.wait(ready, stage=0)
            lm.copy(x, smem_x[0])
            lm.fence_proxy()
            if t > 0:
                lm.arrive(consumed, iter=t)
            lm.reduce(mx, x, op="max", axis=1)
            lm.copy(Y, mx, coords=(t * 64, 0))
