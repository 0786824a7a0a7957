# mutant: wait-early
# original: corpus/conv/sm100_fprop_tcgen05.cake
# line: 63: lm.tma_store_wait(pending=0)
# change: moved `for h in lm.range(0, 2):` after `lm.tma_store_wait(pending=0)`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), P = 1, C = 1 (1 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 225 states; first violation: sync.async-at-exit: epi exits while its TMA store group still accesses shared memory (smem_y[0] bytes [131072, 147456): no lm.tma_store_wait(pending=0) before exit) at `smem_y.tma_store(Y, coords=(n, p, q0, k0 + h * 64), stage=h)` (line 62) (P=1, C=1)
# expect-any: sync.async-at-exit
# Blackwell 3x3 conv fprop (NHWC, stride 1, pad 1) implicit GEMM with
# tcgen05: TMA warp loads the per-tap (1,1,128,64) activation boxes and
# filter tiles into a 4-slot ring, the MMA warp accumulates the 128 pixels
# x 128 output channels tile in TMEM, the epilogue warpgroup applies
# bias + ReLU in two 64-channel sub-tiles and TMA-stores them.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def conv3x3_fprop_sm100(lm, X: LM.tma4d, Wt: LM.tma4d, Bias: LM.gmem, Y: LM.tma4d,
                        P: LM.i32, C: LM.i32):
    lm.assume(C > 0)
    lm.assume(P > 0)
    pool     = lm.smem(163840)
    smem_x   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_w   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_y   = pool.view(offset=131072, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 64), dtype=lm.f32)
    bias     = lm.regs(shape=(1, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    c_blocks = lm.cdiv(C, 64)
    k_iters  = 9 * c_blocks
    q0 = lm.block_idx(0) * 128
    n  = lm.block_idx(1) // P
    p  = lm.block_idx(1) % P
    k0 = lm.block_idx(2) * 128

    with load:
        for it in lm.range(0, k_iters):
            r  = it // (3 * c_blocks)
            s  = (it // c_blocks) % 3
            c0 = (it % c_blocks) * 64
            lm.wait(empty, iter=it - 4)
            smem_x.tma_load(X, coords=(n, p + r - 1, q0 + s - 1, c0), iter=it, barrier=full)
            smem_w.tma_load(Wt, coords=(k0, r, s, c0), iter=it, barrier=full)

    with mma:
        for it in lm.range(0, k_iters):
            lm.wait(full, iter=it)
            lm.mma(tmem_acc, smem_x[it], smem_w[it], init=(it == 0))
            lm.mma_commit(barrier=empty, iter=it)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.tma_store_wait(pending=0)
        for h in lm.range(0, 2):
            lm.copy(acc_r, tmem_acc[:, h * 64:h * 64 + 64])
            lm.copy(bias, Bias, coords=(0, k0 + h * 64))
            lm.binary(acc_r, acc_r, bias, op="add")
            lm.unary(acc_r, acc_r, op="relu")
            lm.copy(smem_y[h], acc_r)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(n, p, q0, k0 + h * 64), stage=h)
            lm.tma_store_commit()
