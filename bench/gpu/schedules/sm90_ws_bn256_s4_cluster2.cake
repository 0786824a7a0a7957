# sm90_ws_bn256_s4.cake (cooperative, persistent, 128x256 tile, 4-slot ring,
# TMA-store epilogue) on 2x1 thread-block clusters that share B through TMA
# multicast (issue 13, helper cluster). C[M,N] = A[M,K] . B[N,K]^T.
# The two CTAs of a cluster walk the same tiles of 256x256 ("pairs") in the
# same order: CTA rank r computes the 128x256 half at rows 256p + 128r, so
# both read the same 256 rows of B. Each CTA loads its own A k-block
# (128x64) and HALF of the B k-block (128x64, rows 128r..), multicast to
# both CTAs: the L2->SM bytes per k-block drop from 48 KiB to 32 KiB per CTA
# (cuBLAS's nvjet_sm90_tst_256x128_64x4_1x2 pairs CTAs the same way).
#  * persistent over clusters: cluster c = block_idx(0) // 2 of
#    grid_dim(0) // 2 takes pairs c, c + #clusters, ...; pairs are walked in
#    groups of 4 pair rows (8 block rows) for L2 reuse, as in the s4 schedule.
#  * producer warpgroup (setmaxnreg 40): one elected thread; the ring index
#    is global across the CTA's tiles. Both producers write every slot of
#    both CTAs (A locally, the B halves to both).
#  * two consumer warpgroups (setmaxnreg 232): instance i multiplies rows
#    [64i, 64i+64) with wgmma m64n256k16, keeps one wgmma group in flight and
#    releases the previous k-block's slot in BOTH CTAs (empty init_count 4:
#    2 consumers x 2 CTAs), because both producers write into it.
#  * every role passes lm.cluster_sync() first (peer barriers initialized)
#    and last (no CTA exits while its peer may still arrive on it or
#    multicast into it).
#  * epilogue: two 64x128 halves through the instance's staging slot, the
#    second half's store running under the next tile's mainloop.
# smem: A 4x16K + B 4x32K + C 2x16K = 224 KiB. smem_bh aliases smem_b.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def gemm_sm90_ws_bn256_s4_cluster2(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                   M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool    = lm.smem(229376)
    smem_a  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b  = pool.view(offset=65536,  shape=(256, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_bh = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=8, swizzle="128B")
    smem_c  = pool.view(offset=196608, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc     = lm.regs(shape=(64, 256), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=4, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    rank      = lm.cluster_rank()
    pairs_m   = lm.cdiv(M, 256)
    tiles_n   = lm.cdiv(N, 256)
    num_pairs = pairs_m * tiles_n
    clusters  = lm.grid_dim(0) // 2
    my_tiles  = lm.cdiv(max(num_pairs - lm.block_idx(0) // 2, 0), clusters)

    with producer:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            pair     = lm.block_idx(0) // 2 + t * clusters
            first_m  = (pair // (4 * tiles_n)) * 4
            group_m  = min(pairs_m - first_m, 4)
            in_group = pair % (4 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 256 + 128 * rank
            n_blk    = (in_group // group_m) * 256
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_bh[2 * (it % 4) + rank].tma_load(B, coords=(n_blk + 128 * rank, k * 64), iter=it,
                                                      barrier=full, multicast=3)
        lm.cluster_sync()

    with consumers:
        lm.cluster_sync()
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            pair     = lm.block_idx(0) // 2 + t * clusters
            first_m  = (pair // (4 * tiles_n)) * 4
            group_m  = min(pairs_m - first_m, 4)
            in_group = pair % (4 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 256 + 128 * rank
            n_blk    = (in_group // group_m) * 256
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k > 0:
                    lm.arrive(empty, iter=it - 1, cta=0)
                    lm.arrive(empty, iter=it - 1, cta=1)
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1, cta=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1, cta=1)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 0:128])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 128:256])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk + 128), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()
