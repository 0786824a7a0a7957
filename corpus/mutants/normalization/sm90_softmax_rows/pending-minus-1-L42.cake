# mutant: pending-minus-1
# original: corpus/normalization/sm90_softmax_rows.cake
# line: 42: lm.tma_store_wait(pending=1)
# change: pending: `1` -> `0`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), rows in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 154 states; first violation: proxy.missing-fence: load's TMA load writes smem_x[0] bytes [0, 32768) through the async proxy, but wg's generic-proxy read of it has no lm.fence_proxy() after it (write-after-read across proxies) at `smem_x.tma_load(X, coords=(r0, 0), iter=t, barrier=full)` (line 28) (rows=144)
# expect-any: proxy.missing-fence
# Hopper row softmax for rows of length 256 (MoE router probabilities,
# short attention rows): persistent, TMA warp -> 2-slot ring -> one
# warpgroup; max-subtract, exp2, sum, divide; 2-slot TMA store ring.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def softmax_256(lm, X: LM.tma2d, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(131072)
    smem_x = pool.view(offset=0,     shape=(64, 256), dtype=lm.bf16, stages=2)
    smem_y = pool.view(offset=65536, shape=(64, 256), dtype=lm.bf16, stages=2)
    x      = lm.regs(shape=(64, 256), dtype=lm.f32)
    m      = lm.regs(shape=(64, 1), dtype=lm.f32)
    l      = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    n_tiles  = lm.cdiv(rows, 64)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 64
            lm.wait(empty, iter=t - 2)
            smem_x.tma_load(X, coords=(r0, 0), iter=t, barrier=full)

    with wg:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 64
            lm.wait(full, iter=t)
            lm.copy(x, smem_x[t])
            lm.arrive(empty, iter=t)
            lm.binary(x, x, 1.442695, op="mul")
            lm.reduce(m, x, op="max", axis=1)
            lm.binary(x, x, m, op="sub")
            lm.unary(x, x, op="exp2")
            lm.reduce(l, x, op="sum", axis=1)
            lm.binary(x, x, l, op="div")
            lm.tma_store_wait(pending=0)
            lm.copy(smem_y[t], x)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(r0, 0), iter=t)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
