# mutant: iter-minus-lap
# original: corpus/gates/tma.box-extent/good_box_rows_256.cake
# line: 32: lm.arrive(empty, iter=j)
# change: iter: `j` -> `j - 2`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 66 states; first violation: proxy.missing-fence: load's TMA load writes smem_x[0] bytes [0, 32768) through the async proxy, but red's generic-proxy read of it has no lm.fence_proxy() after it (write-after-read across proxies) at `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)` (line 25) (D=144)
# expect-any: proxy.missing-fence
# GATE tma.box-extent (good): 256 x 64 boxes - every box dimension within
# 1..256.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rowsum_box_256(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0, shape=(256, 64), dtype=lm.bf16, stages=2)
    x      = lm.regs(shape=(256, 64), dtype=lm.f32)
    part   = lm.regs(shape=(256, 1), dtype=lm.f32)
    total  = lm.regs(shape=(256, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 256

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j - 2)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
