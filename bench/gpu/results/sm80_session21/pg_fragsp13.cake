# A variant timed by helper sm80 (issue 13, session 21; make_variants.sh): the persistent tile loop with one ring
# across tiles (ring index t * k_tiles + k), the next tile's first two k-blocks refilled inside the last two k-blocks
# of the current one (the else branch of the refill guard), as the steady k-blocks are. Its slots are not
# constant per unrolled copy, so the lowering gives its K loop neither the slot unroll nor the steady pass. K > 128.
# expect: pass
@cake.schedule(target="sm_80")
def pgfragsp13_128x128_k64_s3(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 128)
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
            tn = tile + lm.grid_dim(0)
            first_n = (tn // (8 * tiles_n)) * 8
            gmn = min(tiles_m - first_n, 8)
            inn = tn % (8 * tiles_n)
            m_next = (first_n + inn % gmn) * 128
            n_next = (inn // gmn) * 128
            base = t * k_tiles
            if t == 0:
                for s in lm.range(0, 2):
                    smem_a.cp_async(A, coords=(m_blk, s * 64), iter=s)
                    smem_b.cp_async(B, coords=(n_blk, s * 64), iter=s)
                    lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.copy(fa0, smem_a[base][:, 0:16])
            lm.copy(fb0, smem_b[base][:, 0:16])
            for k in lm.range(0, k_tiles):
                it = base + k
                lm.copy(fa1, smem_a[it][:, 16:32])
                lm.copy(fb1, smem_b[it][:, 16:32])
                lm.mma(acc, fa0, fb0, init=(k == 0))
                if k + 2 < k_tiles:
                    smem_a.cp_async(A, coords=(m_blk, (k + 2) * 64), iter=it + 2)
                else:
                    if t + 1 < my_tiles:
                        smem_a.cp_async(A, coords=(m_next, (k + 2 - k_tiles) * 64), iter=it + 2)
                lm.copy(fa0, smem_a[it][:, 32:48])
                lm.copy(fb0, smem_b[it][:, 32:48])
                lm.mma(acc, fa1, fb1)
                lm.copy(fa1, smem_a[it][:, 48:64])
                lm.copy(fb1, smem_b[it][:, 48:64])
                lm.mma(acc, fa0, fb0)
                if k + 2 < k_tiles:
                    smem_b.cp_async(B, coords=(n_blk, (k + 2) * 64), iter=it + 2)
                else:
                    if t + 1 < my_tiles:
                        smem_b.cp_async(B, coords=(n_next, (k + 2 - k_tiles) * 64), iter=it + 2)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=1)
                if k + 1 < k_tiles:
                    lm.copy(fa0, smem_a[it + 1][:, 0:16])
                    lm.copy(fb0, smem_b[it + 1][:, 0:16])
                lm.mma(acc, fa1, fb1)
            lm.copy(out, acc)
            lm.copy(C, out, coords=(m_blk, n_blk))
        lm.cp_async_wait(pending=0)
