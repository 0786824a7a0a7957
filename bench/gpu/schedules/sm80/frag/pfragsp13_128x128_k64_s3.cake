# sm_80 GEMM 128x128x64, 3 stages, mma operands from register fragments: fragsp13_128x128_k64_s3.cake's
# k-block loop inside a persistent tile loop (issue 13, helper sm80, session 21; docs/gpu.md "sm_80: a
# persistent tile loop"). The grid is #SMs x CTAs per SM (the lowering's sm_80 persistent grid); CTA b takes
# tiles b, b + grid, ... in groups of 8 block rows (the order the lowering gives a non-persistent 2-D grid).
# Each tile restarts the ring at slot 0: after its last k-block's cp_async_wait(pending=0) (and the sync the
# lowering puts after it) no warp reads a slot, so the next tile's first two k-blocks are issued there, and
# the tile's epilogue (accumulators -> bf16 -> C, from registers) runs while they are in flight.
# The first tile's two k-blocks are issued under `if t == 0` (a prologue before the tile loop reads
# lm.cdiv(K, 64) outside the loop bounds, which the persistent proof refuses). cake check: checked, proof unknown.
# Measured on the H200: 1.3-1.7 % slower than fragsp13 on a plain grid (0.585 against 0.593 at 4096^3).
# expect: pass
@cake.schedule(target="sm_80")
def pfragsp13_128x128_k64_s3(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    lm.assume(M > 0)
    lm.assume(N > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    fa0    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fa1    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fb0    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fb1    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    mainloop = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 64)
    tiles_m = lm.cdiv(M, 128)
    tiles_n = lm.cdiv(N, 128)
    num_tiles = tiles_m * tiles_n
    my_tiles = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))
    with mainloop:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m = (tile // (8 * tiles_n)) * 8
            group_m = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk = (first_m + in_group % group_m) * 128
            n_blk = (in_group // group_m) * 128
            if t == 0:
                for s in lm.range(0, 2):
                    if s < k_tiles:
                        smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                        smem_b.cp_async(B, coords=(n_blk, s * 64), stage=s)
                    lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.copy(fa0, smem_a[0][:, 0:16])
            lm.copy(fb0, smem_b[0][:, 0:16])
            for k in lm.range(0, k_tiles):
                lm.copy(fa1, smem_a[k][:, 16:32])
                lm.copy(fb1, smem_b[k][:, 16:32])
                lm.mma(acc, fa0, fb0, init=(k == 0))
                if k + 2 < k_tiles:
                    smem_a.cp_async(A, coords=(m_blk, (k + 2) * 64), iter=k + 2)
                lm.copy(fa0, smem_a[k][:, 32:48])
                lm.copy(fb0, smem_b[k][:, 32:48])
                lm.mma(acc, fa1, fb1)
                lm.copy(fa1, smem_a[k][:, 48:64])
                lm.copy(fb1, smem_b[k][:, 48:64])
                lm.mma(acc, fa0, fb0)
                if k + 2 < k_tiles:
                    smem_b.cp_async(B, coords=(n_blk, (k + 2) * 64), iter=k + 2)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=1)
                if k + 1 < k_tiles:
                    lm.copy(fa0, smem_a[k + 1][:, 0:16])
                    lm.copy(fb0, smem_b[k + 1][:, 0:16])
                lm.mma(acc, fa1, fb1)
            lm.cp_async_wait(pending=0)
            if t + 1 < my_tiles:
                tn = tile + lm.grid_dim(0)
                first_n = (tn // (8 * tiles_n)) * 8
                gmn = min(tiles_m - first_n, 8)
                inn = tn % (8 * tiles_n)
                m_next = (first_n + inn % gmn) * 128
                n_next = (inn // gmn) * 128
                for s in lm.range(0, 2):
                    if s < k_tiles:
                        smem_a.cp_async(A, coords=(m_next, s * 64), stage=s)
                        smem_b.cp_async(B, coords=(n_next, s * 64), stage=s)
                    lm.cp_async_commit()
            lm.copy(out, acc)
            lm.copy(C, out, coords=(m_blk, n_blk))
