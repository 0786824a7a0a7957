# A final courtesy release nobody waits for: after its loop the consumer
# releases the hand-off slot once more, annotated iter=n_tiles - 1 (the
# phase its last loop release already completed).  On hardware the extra
# arrival lands in the slot's current phase, n_tiles, which no wait ever
# names: the kernel is correct.  cake reports no error (before, as
# annotated, phase n_tiles - 1 got 2 arrivals for init_count 1 and this
# was sync.arrival-overflow); the annotation is a
# sync.phase-annotation-mismatch warning naming both phases.
# Models: corpus/basics/single_slot_iter_shift.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def single_slot_courtesy_release(lm, X: LM.tma2d, Y: LM.gmem, rows: LM.i32):
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
            lm.arrive(consumed, iter=t)
            lm.reduce(mx, x, op="max", axis=1)
            lm.copy(Y, mx, coords=(t * 64, 0))
        lm.arrive(consumed, iter=n_tiles - 1)
