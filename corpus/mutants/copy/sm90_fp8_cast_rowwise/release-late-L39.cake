# mutant: release-late
# original: corpus/copy/sm90_fp8_cast_rowwise.cake
# line: 39: lm.arrive(empty, iter=t)
# change: moved `lm.arrive(empty, iter=t)` after `lm.unary(ax, x, op="abs")`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), rows in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 160 states; first violation: proxy.missing-fence: load's TMA load writes smem_x[0] bytes [0, 16384) through the async proxy, but compute's generic-proxy read of it has no lm.fence_proxy() after it (write-after-read across proxies) at `smem_x.tma_load(X, coords=(r0, 0), iter=t, barrier=full)` (line 32) (rows=144)
# expect-any: proxy.missing-fence
# Hopper bf16 -> fp8 (e4m3) row-wise quantization, as used before a
# DeepGEMM/FP8 GEMM: per row amax, scale = 448 / amax, y = cast(x * scale);
# the per-row inverse scales go to global memory with plain stores.
# One TMA warp, one compute warpgroup, 2-slot input ring of 64x128 tiles
# (a full 128-wide row slice each), e4m3 staging tile stored with TMA.
# e4m3 rows are 128 bytes: 128B swizzle on the output view.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def quant_fp8_rowwise(lm, X: LM.tma2d, Y: LM.tma2d, S: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(40960)
    smem_x = pool.view(offset=0,     shape=(64, 128), dtype=lm.bf16, stages=2)
    smem_y = pool.view(offset=32768, shape=(64, 128), dtype=lm.e4m3, stages=1, swizzle="128B")
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    ax     = lm.regs(shape=(64, 128), dtype=lm.f32)
    amax   = lm.regs(shape=(64, 1), dtype=lm.f32)
    scale  = lm.regs(shape=(64, 1), dtype=lm.f32)

    load    = lm.role(warps=[0])
    compute = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=pipe)

    n_tiles  = lm.cdiv(rows, 64)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 64
            lm.wait(empty, iter=t - 2)
            smem_x.tma_load(X, coords=(r0, 0), iter=t, barrier=full)

    with compute:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 64
            lm.wait(full, iter=t)
            lm.copy(x, smem_x[t])
            lm.unary(ax, x, op="abs")
            lm.arrive(empty, iter=t)
            lm.reduce(amax, ax, op="max", axis=1)
            lm.binary(amax, amax, 0.0001, op="max")
            lm.unary(scale, amax, op="recip")
            lm.binary(scale, scale, 448.0, op="mul")
            lm.binary(x, x, scale, op="mul")
            lm.tma_store_wait(pending=0)
            lm.copy(smem_y[t], x)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(r0, 0), iter=t)
            lm.tma_store_commit()
            lm.binary(amax, amax, 0.002232143, op="mul")
            lm.copy(S, amax, coords=(r0, 0))
        lm.tma_store_wait(pending=0)
