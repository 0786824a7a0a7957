# mutant: slot-plus-1
# original: corpus/conv/sm90_fprop_tma4d_ws.cake
# line: 51: lm.copy(smem_y[lm.instance()], acc)
# change: smem_y slot: `lm.instance()` -> `lm.instance() + 1`
# label: bad (data.stale-read, sync.race) by the explicit-state simulator (encoder/simulator.h), P = 1, C = 1 (1 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 151 states; first violation: data.stale-read: consumers[0] reads smem_y[0] bytes [131072, 147456) (for index 0) but nothing was written there yet at `smem_y.tma_store(Y, coords=(n, p, q0 + m0, k0), stage=lm.instance())` (line 53) (P=1, C=1)
# expect-any: data.stale-read sync.race
# Hopper 3x3 conv fprop (NHWC, stride 1, pad 1) as a warp-specialized
# implicit GEMM with 4-D TMA boxes (the "tiled" alternative to CUTLASS's
# im2col TMA mode for stride 1): for tap (r, s) and channel block cb the
# producer loads the 128-pixel input row segment X[n, p+r-1, q0+s-1 .. ,
# c0 .. c0+63] (a (1,1,128,64) box; out-of-bounds rows/cols are
# zero-filled by TMA = the padding) and the filter tile W[k0.., r, s,
# c0..].  Two consumer warpgroups (64 pixels each), 4-stage ring, output
# written with 4-D TMA stores (box (1,1,64,128)).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def conv3x3_fprop_sm90(lm, X: LM.tma4d, Wt: LM.tma4d, Y: LM.tma4d, P: LM.i32, C: LM.i32):
    lm.assume(C > 0)
    lm.assume(P > 0)
    pool   = lm.smem(163840)
    smem_x = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_w = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_y = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    c_blocks = lm.cdiv(C, 64)
    k_iters  = 9 * c_blocks
    q0 = lm.block_idx(0) * 128
    n  = lm.block_idx(1) // P
    p  = lm.block_idx(1) % P
    k0 = lm.block_idx(2) * 128

    with producer:
        for it in lm.range(0, k_iters):
            r  = it // (3 * c_blocks)
            s  = (it // c_blocks) % 3
            c0 = (it % c_blocks) * 64
            lm.wait(empty, iter=it - 4)
            smem_x.tma_load(X, coords=(n, p + r - 1, q0 + s - 1, c0), iter=it, barrier=full)
            smem_w.tma_load(Wt, coords=(k0, r, s, c0), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for it in lm.range(0, k_iters):
            lm.wait(full, iter=it)
            lm.mma(acc, smem_x[it][m0:m0 + 64, :], smem_w[it], init=(it == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=it)
        lm.unary(acc, acc, op="relu")
        lm.copy(smem_y[lm.instance() + 1], acc)
        lm.fence_proxy()
        smem_y.tma_store(Y, coords=(n, p, q0 + m0, k0), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
