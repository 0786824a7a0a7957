# mutant: wait-after-use
# original: corpus/moe/sm80_swiglu_expert_ffn.cake
# line: 30: lm.cp_async_wait(pending=1)
# change: moved `lm.cp_async_wait(pending=1)` after `lm.mma(g, smem_a[k], smem_wg[k], init=(k == 0))`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), K in {1, 48, 80, 112, 176, 208}; block_idx 0 of grid_dim 1; 51 states; first violation: sync.race: wg reads pool [0, 8192) while its own cp.async (its group is not retired) still accesses it at `lm.mma(g, smem_a[k], smem_wg[k], init=(k == 0))` (line 30) (K=112)
# expect-any: sync.race
# Ampere MoE expert FFN, first layer with fused SwiGLU: the token tile is
# multiplied by the gate and up projections of one expert in the same
# mainloop (two mma.sync accumulators sharing the A tile), and the epilogue
# computes silu(g) * u = g * u / (1 + 2^(-g*log2(e))).
# 3-stage cp.async ring carrying A, Wg and Wu slots per k-block.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def expert_swiglu(lm, A: LM.gmem, Wg: LM.gmem, Wu: LM.gmem, Hout: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(49152)
    smem_a  = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_wg = pool.view(offset=24576, shape=(64, 32),  dtype=lm.bf16, stages=3, swizzle="64B")
    smem_wu = pool.view(offset=36864, shape=(64, 32),  dtype=lm.bf16, stages=3, swizzle="64B")
    g       = lm.regs(shape=(128, 64), dtype=lm.f32)
    u       = lm.regs(shape=(128, 64), dtype=lm.f32)
    sg      = lm.regs(shape=(128, 64), dtype=lm.f32)
    h       = lm.regs(shape=(128, 64), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 64
    with wg:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_wg.cp_async(Wg, coords=(n_blk, s * 32), stage=s)
                smem_wu.cp_async(Wu, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.mma(g, smem_a[k], smem_wg[k], init=(k == 0))
            lm.cp_async_wait(pending=1)
            lm.mma(u, smem_a[k], smem_wu[k], init=(k == 0))
            if k + 2 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 2) * 32), iter=k + 2)
                smem_wg.cp_async(Wg, coords=(n_blk, (k + 2) * 32), iter=k + 2)
                smem_wu.cp_async(Wu, coords=(n_blk, (k + 2) * 32), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.binary(sg, g, -1.442695, op="mul")
        lm.unary(sg, sg, op="exp2")
        lm.binary(sg, sg, 1.0, op="add")
        lm.binary(g, g, sg, op="div")
        lm.binary(g, g, u, op="mul")
        lm.copy(h, g)
        lm.copy(Hout, h, coords=(m_blk, n_blk))
