# mutant: release-early
# original: corpus/layout/good_tma_dtype_one_element_type.cake
# line: 37: lm.arrive(empty, iter=j)
# change: moved `lm.copy(y, smem_y[j])` after `lm.arrive(empty, iter=j)`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 144, 272, 400, 528}; block_idx 0 of grid_dim 1; 87 states; first violation: proxy.missing-fence: load's TMA load writes smem_x[0] bytes [0, 16384) through the async proxy, but red's generic-proxy read of it has no lm.fence_proxy() after it (write-after-read across proxies) at `smem_x.tma_load(X, coords=(row0, j * 128), iter=j, barrier=full)` (line 28) (D=272)
# expect-any: proxy.missing-fence
# LAYOUT tma.dtype (good): two TMA loads per k-block read the two 64-column
# halves of a 128-column block of X into two bf16 views: one tensor, one
# descriptor, one element type. Bad twin: bad_tma_dtype_two_element_types.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def good_tma_dtype_one_element_type(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_y = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    y      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 128)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 128), iter=j, barrier=full)
            smem_y.tma_load(X, coords=(row0, j * 128 + 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.copy(y, smem_y[j])
            lm.binary(x, x, y, op="add")
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
