# mutant: guard-plus-1
# original: corpus/conv/sm80_fprop_implicit_gemm.cake
# line: 39: if nx < k_iters:
# change: guard: `k_iters` -> `k_iters + 1`
# label: benign: no violation under exhaustive exploration with P = 1, C = 1 (1 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 54 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Ampere 3x3 convolution forward (fprop), NHWC, stride 1, pad 1, as an
# implicit GEMM (CUTLASS Conv2dFprop "analytic" iterator, 3-stage
# multistage mainloop): GEMM M = output pixels (a 128-pixel segment of one
# output row), N = 128 output channels, K = R*S*C iterated as
# it = (r*3 + s)*c_blocks + cb with 32 input channels per k-block.
# The A tile of tap (r, s) is the input row segment X[n, p+r-1,
# q0+s-1 : q0+s+127, c0:c0+32] (padding = zero-filled out-of-bounds
# copies); the B tile is W[k0:k0+128, r, s, c0:c0+32].
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def conv3x3_fprop_sm80(lm, X: LM.gmem, Wt: LM.gmem, Y: LM.gmem,
                       P: LM.i32, C: LM.i32):
    lm.assume(C > 0)
    lm.assume(P > 0)
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_w = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])

    c_blocks = lm.cdiv(C, 32)
    k_iters  = 9 * c_blocks
    q0 = lm.block_idx(0) * 128
    n  = lm.block_idx(1) // P
    p  = lm.block_idx(1) % P
    k0 = lm.block_idx(2) * 128

    with wg:
        for s in lm.range(0, 2):
            if s < k_iters:
                smem_x.cp_async(X, coords=(n, p + s // (3 * c_blocks) - 1, q0 + (s // c_blocks) % 3 - 1, (s % c_blocks) * 32), stage=s)
                smem_w.cp_async(Wt, coords=(k0, s // (3 * c_blocks), (s // c_blocks) % 3, (s % c_blocks) * 32), stage=s)
            lm.cp_async_commit()
        for it in lm.range(0, k_iters):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_x[it], smem_w[it], init=(it == 0))
            nx = it + 2
            if nx < k_iters + 1:
                smem_x.cp_async(X, coords=(n, p + nx // (3 * c_blocks) - 1, q0 + (nx // c_blocks) % 3 - 1, (nx % c_blocks) * 32), iter=nx)
                smem_w.cp_async(Wt, coords=(k0, nx // (3 * c_blocks), (nx // c_blocks) % 3, (nx % c_blocks) * 32), iter=nx)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.unary(acc, acc, op="relu")
        lm.copy(out, acc)
        lm.copy(Y, out, coords=(n, p, q0, k0))
