# mutant: slot-plus-1
# original: corpus/splitk/sm80_splitk_partials.cake
# line: 29: lm.mma(acc, smem_a[k], smem_b[k], init=False)
# change: smem_a slot: `k` -> `k + 1`
# label: bad (sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), K in {1, 48, 80, 112, 176, 208}; block_idx 0 of grid_dim 1; 52 states; first violation: sync.race: wg reads pool [8192, 16384) while its own cp.async (its group is not retired) still accesses it at `lm.mma(acc, smem_a[k + 1], smem_b[k], init=False)` (line 29) (K=112)
# expect-any: sync.race data.stale-read
# Ampere parallel split-K, partial kernel: grid (m, n, split); each CTA runs
# the 3-stage cp.async mainloop over its K-slice only and writes an f32
# partial tile to the workspace with global stores (a separate reduction
# kernel sums them).  Empty slices write zeros (fill + init=False).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def splitk_partial_sm80(lm, A: LM.gmem, B: LM.gmem, W: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 32)
    k_per   = lm.cdiv(k_tiles, lm.grid_dim(2))
    k_lo    = lm.block_idx(2) * k_per
    k_n     = max(min(k_per, k_tiles - k_lo), 0)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with wg:
        lm.fill(acc, 0.0)
        for s in lm.range(0, 2):
            if s < k_n:
                smem_a.cp_async(A, coords=(m_blk, (k_lo + s) * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, (k_lo + s) * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_n):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k + 1], smem_b[k], init=False)
            if k + 2 < k_n:
                smem_a.cp_async(A, coords=(m_blk, (k_lo + k + 2) * 32), iter=k + 2)
                smem_b.cp_async(B, coords=(n_blk, (k_lo + k + 2) * 32), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(W, acc, coords=(lm.block_idx(2), m_blk, n_blk))
