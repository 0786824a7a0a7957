# An explicit lm.expect_tx addressed with stage= (a slot index, phase
# derived per instance from its earlier arrivals on the slot), with the
# loads that complete on it addressed the same way - the full form of what
# lowering derives when expect_tx is omitted.  Single-slot ring: the
# producer waits for the consumer's release before refilling (skipped on
# the first tile).
# expect: pass
@cake.schedule(target="sm_90a")
def explicit_tx_stage(lm, X: LM.tma2d, Z: LM.tma2d, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0,     shape=(64, 128), dtype=lm.bf16, stages=1)
    smem_z = pool.view(offset=16384, shape=(64, 128), dtype=lm.bf16, stages=1)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    z      = lm.regs(shape=(64, 128), dtype=lm.f32)
    d      = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=1, prod=[load], cons=[wg], init_count=1)
    empty = lm.barrier(count=1, prod=[wg], cons=[load], init_count=1)

    n_tiles = lm.cdiv(rows, 64)

    with load:
        for t in lm.range(0, n_tiles):
            if t > 0:
                lm.wait(empty, stage=0)
            lm.expect_tx(full, 2 * 64 * 128 * 2, stage=0)
            smem_x.tma_load(X, coords=(t * 64, 0), stage=0, barrier=full)
            smem_z.tma_load(Z, coords=(t * 64, 0), stage=0, barrier=full)

    with wg:
        for t in lm.range(0, n_tiles):
            lm.wait(full, stage=0)
            lm.copy(x, smem_x[0])
            lm.copy(z, smem_z[0])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, stage=0)
            lm.binary(x, x, z, op="mul")
            lm.reduce(d, x, op="sum", axis=1)
            lm.copy(Y, d, coords=(t * 64, 0))
