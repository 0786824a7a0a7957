# FIXED: helion_pallas_splitk_plain_store_overwrite.cake with the split-K
# design of facebookexperimental/triton PR #1067 ("Replace atomic
# reduction with separate reduction kernel for Split-K"): each split
# writes its partial to its own slab of a workspace, "a non-overlapping
# region", and a separate kernel sums the partials (as this corpus's
# splitk/sm80_splitk_partials.cake, whose reduction kernel is
# splitk/sm90_splitk_partials.cake's second schedule).  CTA (bm, bn, s)
# stores W[s, 128 bm : 128 bm + 128, 128 bn : 128 bn + 128]: no two CTAs
# share an element.
# expect: pass
@cake.schedule(target="sm_80")
def helion_splitk_partial_workspace(lm, A: LM.gmem, B: LM.gmem, W: LM.gmem, K: LM.i32):
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
            lm.mma(acc, smem_a[k], smem_b[k], init=False)
            if k + 2 < k_n:
                smem_a.cp_async(A, coords=(m_blk, (k_lo + k + 2) * 32), iter=k + 2)
                smem_b.cp_async(B, coords=(n_blk, (k_lo + k + 2) * 32), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(W, acc, coords=(lm.block_idx(2), m_blk, n_blk))
