# mutant: stage-plus-1
# original: corpus/gates/mma.dtype/good_sm80_bf16_operands.cake
# line: 20: smem_b.cp_async(B, coords=(n_blk, s * 64), stage=s)
# change: stage: `s` -> `(s + 1) % 3`
# label: bad (data.stale-read) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 336, 400}; block_idx 0 of grid_dim 1; 46 states; first violation: data.stale-read: wg reads smem_b[0] bytes [49152, 65536) (for index 0) but nothing was written there yet at `lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))` (line 24) (K=208)
# expect-any: data.stale-read
# GATE mma.dtype (good): bf16 x bf16 -> f32 on sm_80 (mma.sync
# m16n8k16.bf16), 3-stage multistage mainloop.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def gemm_sm80_bf16(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with wg:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 64), stage=(s + 1) % 3)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            if k + 2 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 2) * 64), iter=k + 2)
                smem_b.cp_async(B, coords=(n_blk, (k + 2) * 64), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
