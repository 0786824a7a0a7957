# mutant: release-late
# original: corpus/layout/good_tma_inner_bytes_bk_multiple_of_4.cake
# line: 38: lm.arrive(empty, iter=j)
# change: moved `lm.arrive(empty, iter=j)` after `lm.reduce(part, x, op="sum", axis=1)`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 5, 9, 13}, BK = 4 (4 combinations with every trip count <= 5); block_idx 0 of grid_dim 1; 56 states; first violation: proxy.missing-fence: load's TMA load writes smem_x[0] bytes [0, 2048) through the async proxy, but red's generic-proxy read of it has no lm.fence_proxy() after it (write-after-read across proxies) at `smem_x.tma_load(X, coords=(row0, j * BK), iter=j, barrier=full)` (line 31) (D=9, BK=4)
# expect-any: proxy.missing-fence
# LAYOUT tma.inner-bytes (good, symbolic): rows of BK f32 values are 4*BK
# bytes; with BK a multiple of 4 they are a multiple of 16 bytes, as the
# copy engine requires of the innermost box dimension.
# Bad twin: bad_tma_inner_bytes_bk_even.
# (the original's expectation: see the label above)

@cake.schedule(target="sm_90a")
def good_tma_inner_bytes_bk_multiple_of_4(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BK: LM.i32):
    lm.assume(D > 0)
    lm.assume(BK >= 4)
    lm.assume(BK <= 32)
    lm.assume(BK % 4 == 0)
    pool   = lm.smem(2 * 128 * BK * 4)
    smem_x = pool.view(offset=0, shape=(128, BK), dtype=lm.f32, stages=2)
    x      = lm.regs(shape=(128, BK), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, BK)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * BK), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.reduce(part, x, op="sum", axis=1)
            lm.arrive(empty, iter=j)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
