# mutant: release-early
# original: corpus/layout/good_view_outside_pool_bm_bounded.cake
# line: 38: lm.arrive(empty, iter=j)
# change: moved `lm.copy(x, smem_x[j])` after `lm.arrive(empty, iter=j)`
# label: bad (sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}, BM = 64 (5 combinations with every trip count <= 5); block_idx 0 of grid_dim 1; 78 states; first violation: sync.race: load's TMA load (not landed yet) writes smem_x[0] bytes [0, 8192) while red's lm.copy reads them at `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)` (line 31) (D=144, BM=64)
# expect-any: sync.race data.stale-read proxy.missing-fence
# LAYOUT layout.view-outside-pool (good, symbolic): the ring holds 2 slots
# of BM x 64 bf16 = 256*BM bytes in a 32 KiB pool. The gate proves
# 2 * (BM * 64 * 2) <= 32768 for every BM the assumptions allow
# (BM a multiple of 64 in 64..128). Bad twin: bad_view_outside_pool_bm_unbounded.
# (the original's expectation: see the label above)

@cake.schedule(target="sm_90a")
def good_view_outside_pool_bm_bounded(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 64)
    lm.assume(BM <= 128)
    lm.assume(BM % 64 == 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)
    part   = lm.regs(shape=(BM, 1), dtype=lm.f32)
    total  = lm.regs(shape=(BM, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * BM

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.arrive(empty, iter=j)
            lm.copy(x, smem_x[j])
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
