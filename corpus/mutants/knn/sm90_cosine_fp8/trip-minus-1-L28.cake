# mutant: trip-minus-1
# original: corpus/knn/sm90_cosine_fp8.cake
# line: 28: for k in lm.range(0, d_tiles):
# change: loop bound: `d_tiles` -> `d_tiles - 1`
# label: bad (sync.arrival-underflow) by the explicit-state simulator (encoder/simulator.h), D in {1, 144, 272, 400, 656, 784}; block_idx 0 of grid_dim 1; 181 states; first violation: sync.arrival-underflow: phase 0 of full[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(full, iter=k)` (line 35) (D=1)
# expect-any: sync.arrival-underflow
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
        for k in lm.range(0, d_tiles - 1):
            lm.wait(empty, iter=k - 3)
            smem_q.tma_load(Q, coords=(q0, k * 128), iter=k, barrier=full)
            smem_x.tma_load(Xdb, coords=(x0, k * 128), iter=k, barrier=full)

    with wg:
        for k in lm.range(0, d_tiles):
            lm.wait(full, iter=k)
            lm.mma(sim, smem_q[k], smem_x[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.reduce(mv, sim, op="max", axis=1)
        lm.reduce(mi, sim, op="argmax", axis=1)
        lm.copy(PV, mv, coords=(q0, lm.block_idx(1)))
        lm.copy(PI, mi, coords=(q0, lm.block_idx(1)))
