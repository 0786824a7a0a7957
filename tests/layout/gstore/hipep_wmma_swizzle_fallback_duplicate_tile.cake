# BUG (sync.race): ROCm/hip-ep PR #207 ("fix(matmul_nbits): correct WMMA
# swizzle block-to-tile mapping for non-aligned n_tiles").  The WMMA GEMM
# reordered its thread blocks over the output's column tiles in groups of
# sw for L2 locality; the mapping "was non-bijective when n_tiles % sw !=
# 0: some tiles were computed twice (collision - overwritten), some never
# computed", because the old code "fell back to row-major only when bx >=
# n_tiles, which is too late".  The PR does not quote the old expression;
# this file writes the mapping its description gives: block (bx, by) of a
# grid of n_tiles x m_tiles takes column tile
#     cand = bx // sw * sw + (bx % sw + by) % sw     (sw = 4)
#     tile_n = cand if cand < n_tiles else bx        (the late fallback)
# In the last, partial group a rotated candidate past n_tiles falls back
# to bx, which another block of that group also rotates onto: with
# n_tiles = 2 (N = 128) and row 7, blocks 0 and 1 both store column tile
# 0.  Written on sm_80 with 64 x 64 tiles, a cp.async mainloop and a
# plain global store of the tile (the kernel's u4 dequantization and its
# nontemporal store are left out).
# expect: sync.race
@cake.schedule(target="sm_80")
def hipep_wmma_swizzle_late_fallback(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, N: LM.i32, K: LM.i32):
    lm.assume(N > 0)
    lm.assume(K > 0)
    lm.assume(lm.grid_dim(0) == lm.cdiv(N, 64))
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(64, 32), dtype=lm.bf16, stages=2)
    smem_b = pool.view(offset=8192, shape=(64, 32), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    n_tiles = lm.cdiv(N, 64)
    bx = lm.block_idx(0)
    by = lm.block_idx(1)
    cand = bx // 4 * 4 + (bx % 4 + by) % 4
    tile_n = cand * (cand < n_tiles) + bx * (cand >= n_tiles)
    with wg:
        for k in lm.range(0, lm.cdiv(K, 32)):
            smem_a.cp_async(A, coords=(by * 64, k * 32), stage=0)
            smem_b.cp_async(B, coords=(tile_n * 64, k * 32), stage=0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.mma(acc, smem_a[0], smem_b[0], init=(k == 0))
        lm.copy(C, acc, coords=(by * 64, tile_n * 64))  # expect-error: sync.race
