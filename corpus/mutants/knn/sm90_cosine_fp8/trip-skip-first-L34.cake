# mutant: trip-skip-first
# original: corpus/knn/sm90_cosine_fp8.cake
# line: 34: for k in lm.range(0, d_tiles):
# change: loop start: `0` -> `1`
# label: bad (sync.async-at-exit, sync.arrival-underflow, data.uninitialized, sync.stale-phase) by the explicit-state simulator (encoder/simulator.h), D in {1, 144, 272, 400, 656, 784}; block_idx 0 of grid_dim 1; 137 states; first violation: sync.async-at-exit: every role has exited while the TMA load into smem_q[0] bytes [0, 8192) has not landed at `smem_q.tma_load(Q, coords=(q0, k * 128), iter=k, barrier=full)` (line 30) (D=1)
# expect-any: sync.async-at-exit sync.arrival-underflow data.uninitialized sync.stale-phase
# Hopper FP8 (e4m3) cosine-similarity search over pre-normalized embeddings
# (retrieval re-ranking): queries x database block similarity with fp8
# wgmma (K = 128 per k-block: e4m3 rows of 128 bytes, 128B swizzle), then
# per-block maximum similarity and its argmax.  TMA warp + one consumer
# warpgroup (64 queries), 3-stage ring over D.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def cosine_fp8_block(lm, Q: LM.tma2d, Xdb: LM.tma2d, PV: LM.gmem, PI: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(73728)
    smem_q = pool.view(offset=0,     shape=(64, 128),  dtype=lm.e4m3, stages=3, swizzle="128B")
    smem_x = pool.view(offset=24576, shape=(128, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    sim    = lm.regs(shape=(64, 128), dtype=lm.f32)
    mv     = lm.regs(shape=(64, 1), dtype=lm.f32)
    mi     = lm.regs(shape=(64, 1), dtype=lm.i32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 128)
    q0 = lm.block_idx(0) * 64
    x0 = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, d_tiles):
            lm.wait(empty, iter=k - 3)
            smem_q.tma_load(Q, coords=(q0, k * 128), iter=k, barrier=full)
            smem_x.tma_load(Xdb, coords=(x0, k * 128), iter=k, barrier=full)

    with wg:
        for k in lm.range(1, d_tiles):
            lm.wait(full, iter=k)
            lm.mma(sim, smem_q[k], smem_x[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.reduce(mv, sim, op="max", axis=1)
        lm.reduce(mi, sim, op="argmax", axis=1)
        lm.copy(PV, mv, coords=(q0, lm.block_idx(1)))
        lm.copy(PI, mi, coords=(q0, lm.block_idx(1)))
