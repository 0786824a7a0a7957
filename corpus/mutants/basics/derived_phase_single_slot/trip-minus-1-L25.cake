# mutant: trip-minus-1
# original: corpus/basics/derived_phase_single_slot.cake
# line: 25: for t in lm.range(0, n_tiles):
# change: loop bound: `n_tiles` -> `n_tiles - 1`
# label: bad (sync.arrival-underflow, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), rows in {1, 80, 144}; block_idx 0 of grid_dim 1; 19 states; first violation: sync.arrival-underflow: phase 0 of ready[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(ready, stage=0)` (line 32) (rows=1)
# expect-any: sync.arrival-underflow proxy.missing-fence
# stage= without phase=: the phase is derived per instance as the number of
# its earlier waits on that slot.  A one-slot "tile ready" barrier reused
# every iteration therefore needs no phase arithmetic: the k-th
# lm.wait(ready, stage=0) means phase k.  The producer paces itself on a
# one-slot "tile consumed" barrier the same way (skipping its first wait).
# Models: a single-buffer producer/consumer hand-off (CUTLASS
# PipelineAsync with one stage).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def single_slot_handoff(lm, X: LM.tma2d, Y: LM.gmem, rows: LM.i32):
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
        for t in lm.range(0, n_tiles - 1):
            if t > 0:
                lm.wait(consumed, stage=0)
            smem_x.tma_load(X, coords=(t * 64, 0), stage=0, barrier=ready)

    with wg:
        for t in lm.range(0, n_tiles):
            lm.wait(ready, stage=0)
            lm.copy(x, smem_x[0])
            lm.arrive(consumed, stage=0)
            lm.reduce(mx, x, op="max", axis=1)
            lm.copy(Y, mx, coords=(t * 64, 0))
