# FIXED: hipep_wmma_swizzle_fallback_duplicate_tile.cake as ROCm/hip-ep
# PR #207 fixes it: "split the block grid into two regions: main region
# (n_tiles / sw) * sw columns - full sw-wide swizzle groups apply
# correctly; tail region: remaining n_tiles % sw columns - plain
# row-major".  A block of a full group rotates within its own group; a
# block of the tail keeps its column: the mapping is a bijection, and no
# two blocks store one tile.
# expect: pass
@cake.schedule(target="sm_80")
def hipep_wmma_swizzle_split_tail(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, N: LM.i32, K: LM.i32):
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
    main = n_tiles // 4 * 4
    tile_n = cand * (bx < main) + bx * (bx >= main)
    with wg:
        for k in lm.range(0, lm.cdiv(K, 32)):
            smem_a.cp_async(A, coords=(by * 64, k * 32), stage=0)
            smem_b.cp_async(B, coords=(tile_n * 64, k * 32), stage=0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.mma(acc, smem_a[0], smem_b[0], init=(k == 0))
        lm.copy(C, acc, coords=(by * 64, tile_n * 64))
