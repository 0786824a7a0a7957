# BUG (sync.race): pytorch/helion PR #2615 ("[Pallas] Fix atomic add
# semantics (when targeting an output ref)").  Helion's split-K matmul
# runs one program per (tm, tn, k-split) and ends with
#     hl.atomic_add(out, [tm, tn], acc)
# which the Pallas backend lowered to an ordinary read-modify-write
#     prev = out[index]; out[index] = prev + value
# Split-K makes every k-split program of one (tm, tn) update the same
# output tile, so the plain stores overwrite each other and the tile keeps
# whichever split's store lands last (the PR: "That is fine when the
# program owns the output tile exclusively.  Split-K is different").
# Written in CAKE IR on sm_80 as this corpus's parallel split-K partial
# kernel (splitk/sm80_splitk_partials.cake): grid (m, n, split), CTA
# (bm, bn, s) runs the cp.async mainloop over its K slice and stores its
# f32 partial with a plain global store to C at (128 bm, 128 bn): the
# CTAs (bm, bn, 0) and (bm, bn, 1) store one tile.  The IR has no atomic
# or reducing store, so the read half of the read-modify-write is left
# out: the lost update is the write-write race cake reports.
# expect: sync.race
@cake.schedule(target="sm_80")
def helion_splitk_partial_plain_store(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
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
        lm.copy(C, acc, coords=(m_blk, n_blk))  # out[tm, tn] = prev + acc  # expect-error: sync.race
