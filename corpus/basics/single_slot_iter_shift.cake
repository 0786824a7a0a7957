# A one-slot hand-off whose release names the NEXT phase: the consumer's
# lm.arrive(consumed, iter=t + 1) means phase t + 1 of consumed[0], but an
# mbarrier arrive names only the slot (mbarrier.arrive has no phase
# operand), so on hardware it lands in the slot's current phase, t - and
# the producer's wait for phase t - 1 (iter=t - 1) passes exactly when it
# should.  The lowered CUDA is the same as with iter=t
# (corpus/basics/derived_phase_single_slot.cake writes it with stage=0).
# cake follows what runs: no error; the annotation that disagrees with
# where the arrival lands is a warning, sync.phase-annotation-mismatch,
# naming both phases.  (Before, as annotated, phase 0 got no arrival and
# this was reported as sync.arrival-underflow "its waiters hang".)
# Models: a single-buffer producer/consumer hand-off.
# expect: pass
@cake.schedule(target="sm_90a")
def single_slot_iter_shift(lm, X: LM.tma2d, Y: LM.gmem, rows: LM.i32):
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
            lm.wait(consumed, iter=t - 1)
            smem_x.tma_load(X, coords=(t * 64, 0), stage=0, barrier=ready)

    with wg:
        for t in lm.range(0, n_tiles):
            lm.wait(ready, stage=0)
            lm.copy(x, smem_x[0])
            lm.fence_proxy()
            lm.arrive(consumed, iter=t + 1)
            lm.reduce(mx, x, op="max", axis=1)
            lm.copy(Y, mx, coords=(t * 64, 0))
