# mutant: trip-minus-1
# original: corpus/gates/layout.smem-limit/good_sm80_stage_count.cake
# line: 22: for k in lm.range(0, k_tiles):
# change: loop bound: `k_tiles` -> `k_tiles - 1`
# label: bad (data.uninitialized) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 272, 336, 592}; block_idx 0 of grid_dim 1; 159 states; first violation: data.uninitialized: wg's lm.copy reads acc element (0, 0), which this instance has not written: a register fragment holds undefined values until its own instance writes them at `lm.copy(out, acc)` (line 30) (K=1)
# expect-any: data.uninitialized
# GATE layout.smem-limit (good): the same Ampere GEMM with 4 stages
# (128 KiB), within sm_80's limit.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def gemm_sm80_within_limit(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with wg:
        for s in lm.range(0, 3):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 64), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles - 1):
            lm.cp_async_wait(pending=2)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            if k + 3 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 3) * 64), iter=k + 3)
                smem_b.cp_async(B, coords=(n_blk, (k + 3) * 64), iter=k + 3)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
