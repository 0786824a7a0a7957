# Cooperative GEMM with a 128x256 tile, a 4-slot ring and a 2x1 thread-block
# cluster that shares B through TMA multicast (issue 13, helper cluster).
# C[M,N] = A[M,K] . B[N,K]^T. The two CTAs of a cluster compute vertically
# adjacent 128x256 tiles (block_idx(0) = 2c and 2c+1) that read the same
# 256 rows of B: each CTA loads its own A k-block (128x64) and HALF of the
# B k-block (128x64, rows 128*rank..), multicast to both CTAs, so B's L2
# traffic halves (cuBLAS's nvjet_sm90_tst_256x128_64x4_1x2 kernel pairs
# CTAs the same way). Each full[s] receives A + both B halves (48 KiB; the
# derived expect_tx counts the multicast box once per CTA of the mask).
#  * producer warpgroup (setmaxnreg 40): one elected thread.
#  * two consumer warpgroups (setmaxnreg 232): instance i multiplies rows
#    [64i, 64i+64) with wgmma m64n256k16, keeps one wgmma group in flight and
#    releases the previous k-block's slot in BOTH CTAs (empty init_count 4:
#    2 consumers x 2 CTAs), because both producers write every slot.
#  * every role passes lm.cluster_sync() first (peer barriers initialized)
#    and last (no CTA exits while its peer may still arrive on it).
#  * epilogue: two 64x128 halves through the instance's staging slot.
# smem: A 4x16K + B 4x32K + C 2x16K = 224 KiB. smem_bh aliases smem_b.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def gemm_sm90_ws_bn256_cluster2(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
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

    k_tiles = lm.cdiv(K, 64)
    rank    = lm.cluster_rank()
    m_blk   = lm.block_idx(0) * 128
    n_blk   = lm.block_idx(1) * 256

    with producer:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_bh[2 * (k % 4) + rank].tma_load(B, coords=(n_blk + 128 * rank, k * 64), iter=k, barrier=full,
                                                 multicast=3)
        lm.cluster_sync()

    with consumers:
        lm.cluster_sync()
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
            if k > 0:
                lm.arrive(empty, iter=k - 1, cta=0)
                lm.arrive(empty, iter=k - 1, cta=1)
        lm.mma_wait(pending=0)
        lm.arrive(empty, iter=k_tiles - 1, cta=0)
        lm.arrive(empty, iter=k_tiles - 1, cta=1)
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
