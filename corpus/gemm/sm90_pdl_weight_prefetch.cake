# A PDL GEMM mainloop with the weight prefetch: the producer arms the first
# two stages with one explicit expect_tx for both operands and loads their
# weight (W) tiles BEFORE lm.grid_dep_wait() - the weights do not depend on
# the preceding grid, so their loads overlap its tail - and the activation
# (X) tiles, which the preceding grid writes, after it; later stages load
# both after the wait. The consumers' epilogue adds a bias the preceding
# grid also writes: it never waits itself, but every full phase it passes
# needs an X load issued after the producer's wait, so the read is ordered
# (docs/rules/sync.grid-dependency.md). Before session 26 (helper rb5) this
# correct kernel was a false sync.tx-imbalance (the prologue's expect_tx was
# compared with the weight load of its own block only) and a false
# sync.grid-dependency for K <= 128.
# expect: pass
@cake.schedule(target="sm_90a")
def sm90_pdl_weight_prefetch(lm, X: LM.tma2d, W: LM.tma2d, Bias: LM.gmem, Y: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(X)
    lm.grid_dependency(Bias)
    pool = lm.smem(65536)
    xs   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    ws   = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc  = lm.regs(shape=(64, 128), dtype=lm.f32)
    bias = lm.regs(shape=(64, 128), dtype=lm.f32)
    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[load], cons=[math], init_count=1)
    empty = lm.barrier(count=2, prod=[math], cons=[load], init_count=1)
    k_tiles = lm.cdiv(K, 64)
    with load:
        for s in lm.range(0, 2):
            if s < k_tiles:
                lm.expect_tx(full, 24576, iter=s)
                ws.tma_load(W, coords=(0, 64 * s), iter=s, barrier=full)
        lm.grid_dep_wait()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            if k >= 2:
                lm.expect_tx(full, 24576, iter=k)
                ws.tma_load(W, coords=(0, 64 * k), iter=k, barrier=full)
            xs.tma_load(X, coords=(0, 64 * k), iter=k, barrier=full)
    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, xs[k], ws[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(bias, Bias, coords=(0, 0))
        lm.binary(acc, acc, bias, op="add")
        lm.copy(Y, acc, coords=(0, 0))
