# mutant: slot-minus-1
# original: corpus/conv/sm80_pointwise_1x1.cake
# line: 29: lm.mma(acc, smem_x[k], smem_w[k], init=(k == 0))
# change: smem_w slot: `k` -> `k - 1`
# label: bad (data.stale-read, sync.race) by the explicit-state simulator (encoder/simulator.h), C in {1, 48, 80, 112, 144}; block_idx 0 of grid_dim 1; 38 states; first violation: data.stale-read: wg reads smem_w[1] bytes [24576, 32768) (for index -1) but nothing was written there yet at `lm.mma(acc, smem_x[k], smem_w[k - 1], init=(k == 0))` (line 29) (C=1)
# expect-any: data.stale-read sync.race
# Ampere 1x1 (pointwise) convolution, NHWC: with R = S = 1 the implicit
# GEMM degenerates to a plain GEMM over the flattened pixels
# (M = N*H*W, K = C_in, N = C_out) - the MobileNet/ResNet bottleneck case.
# 2-stage cp.async double buffer, bias add + ReLU epilogue.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def conv1x1_sm80(lm, X: LM.gmem, Wt: LM.gmem, Bias: LM.gmem, Y: LM.gmem, C: LM.i32):
    lm.assume(C > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    smem_w = pool.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    bias   = lm.regs(shape=(1, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(C, 32)
    m0 = lm.block_idx(0) * 128
    n0 = lm.block_idx(1) * 128
    with wg:
        smem_x.cp_async(X, coords=(m0, 0), iter=0)
        smem_w.cp_async(Wt, coords=(n0, 0), iter=0)
        lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            if k + 1 < k_tiles:
                smem_x.cp_async(X, coords=(m0, (k + 1) * 32), iter=k + 1)
                smem_w.cp_async(Wt, coords=(n0, (k + 1) * 32), iter=k + 1)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_x[k], smem_w[k - 1], init=(k == 0))
        lm.cp_async_wait(pending=0)
        lm.copy(bias, Bias, coords=(0, n0))
        lm.binary(acc, acc, bias, op="add")
        lm.unary(acc, acc, op="relu")
        lm.copy(out, acc)
        lm.copy(Y, out, coords=(m0, n0))
