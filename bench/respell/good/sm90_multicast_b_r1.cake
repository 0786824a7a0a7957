# respells: corpus/cluster/sm90_multicast_b.cake
# change: the two remote releases as a loop over the cluster's CTAs with stage=k % 2 and
# implicit phases, the producer's first lap as a guarded wait with an explicit phase, the
# half-slot of B as (2 * k + rank) % 4, the multicast mask as 1 + 2, the math role declared
# first, count=2 barriers.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def gemm_cluster_multicast_b(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(65536)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_bh = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)

    math = lm.role(warps=[4, 5, 6, 7])
    load = lm.role(warps=[0])
    empty = lm.barrier(count=2, prod=[math], cons=[load], init_count=2)
    full  = lm.barrier(count=2, prod=[load], cons=[math], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    rank  = lm.cluster_rank()
    m_blk = 64 * lm.block_idx(0)
    n_blk = 128 * lm.block_idx(1)

    with math:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 2)
            lm.mma(acc, smem_a[k % 2], smem_b[k % 2], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            for peer in lm.range(0, 2):
                lm.arrive(empty, stage=k % 2, cta=peer)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()

    with load:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            if k >= 2:
                lm.wait(empty, stage=k % 2, phase=k // 2 - 1)
            smem_a.tma_load(A, coords=(m_blk, 64 * k), stage=k % 2, barrier=full)
            smem_bh[(2 * k + rank) % 4].tma_load(B, coords=(n_blk + 64 * rank, 64 * k), stage=k % 2,
                                                 barrier=full, multicast=1 + 2)
        lm.cluster_sync()
