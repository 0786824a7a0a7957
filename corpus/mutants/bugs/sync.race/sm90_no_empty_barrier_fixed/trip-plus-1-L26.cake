# mutant: trip-plus-1
# original: corpus/bugs/sync.race/sm90_no_empty_barrier_fixed.cake
# line: 26: for j in lm.range(0, d_tiles):
# change: loop bound: `d_tiles` -> `d_tiles + 1`
# label: bad (proxy.missing-fence, sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208}; block_idx 0 of grid_dim 1; 49 states; first violation: proxy.missing-fence: load's TMA load writes smem_x[0] bytes [0, 16384) through the async proxy, but red's generic-proxy read of it has no lm.fence_proxy() after it (write-after-read across proxies) at `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)` (line 28) (D=80)
# expect-any: proxy.missing-fence sync.async-at-exit
# FIXED version of sm90_no_empty_barrier.cake: a full/empty barrier pair.
# The consumer warpgroup releases slot j%2 after copying it to registers
# (lowering syncs the warpgroup's 4 warps before the elected arrive), and
# the producer waits for that release before the refill two iterations
# later (wait empty iter=j-2; negative on the first lap -> passes at once).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rowsum_with_empty(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles + 1):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
