# FIXED: sm90_cluster_persistent_iter_restart.cake with the ring iteration
# global across the cluster's tiles (it = t * k_tiles + k): every wait names
# the lap the slot is really in, so a refill waits for both CTAs' releases
# of the previous tile's k-blocks.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def gemm_cluster_persistent_restart_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    lm.assume(K <= 128)  # 1 or 2 k-blocks per tile: the bug is in the tile loop, and the gate's budget is small
    pool    = lm.smem(65536)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_bh = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=2, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    rank      = lm.cluster_rank()
    pairs_m   = lm.cdiv(M, 128)
    num_pairs = pairs_m * lm.cdiv(N, 128)
    clusters  = lm.grid_dim(0) // 2
    my_tiles  = lm.cdiv(max(num_pairs - lm.block_idx(0) // 2, 0), clusters)

    with load:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            pair  = lm.block_idx(0) // 2 + t * clusters
            n_blk = (pair // pairs_m) * 128
            m_blk = (pair % pairs_m) * 128 + 64 * rank
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_bh[2 * (it % 2) + rank].tma_load(B, coords=(n_blk + 64 * rank, k * 64), iter=it, barrier=full,
                                                     multicast=3)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            pair  = lm.block_idx(0) // 2 + t * clusters
            n_blk = (pair // pairs_m) * 128
            m_blk = (pair % pairs_m) * 128 + 64 * rank
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it, cta=0)
                lm.arrive(empty, iter=it, cta=1)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()
