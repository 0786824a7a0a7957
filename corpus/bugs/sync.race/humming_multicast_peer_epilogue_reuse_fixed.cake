# FIXED form of humming_multicast_peer_epilogue_reuse.cake (inclusionAI/humming
# PR #56): each CTA's epilogue arrives on the LEADER's epi_done (init_count
# 2), so the leader multicasts the next tile's A only after the epilogues
# of both CTAs have left the staging buffer.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def humming_multicast_peer_epilogue_reuse_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=0,     shape=(64, 128), dtype=lm.bf16)
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[math], cons=[load], init_count=2, pipeline=pipe)
    epi_done = lm.barrier(count=1, prod=[math], cons=[load], init_count=2)

    k_tiles  = lm.cdiv(K, 64)
    rank     = lm.cluster_rank()
    clusters = lm.grid_dim(0) // 2
    my_tiles = lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0) // 2, 0), clusters)

    with load:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            m_blk = (lm.block_idx(0) // 2 + t * clusters) * 64
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                if rank == 0 and t > 0 and k == 0:
                    lm.wait(epi_done, stage=0)
                lm.wait(empty, iter=it - 2)
                lm.expect_tx(full, 24576, iter=it)
                if rank == 0:
                    smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full, multicast=3)
                smem_b.tma_load(B, coords=(rank * 128, k * 64), iter=it, barrier=full)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            m_blk = (lm.block_idx(0) // 2 + t * clusters) * 64
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it, cta=0)
                lm.arrive(empty, iter=it, cta=1)
            # epilogue: C staged over the A ring (a union)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, rank * 128), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(epi_done, stage=0, cta=0)
        lm.cluster_sync()
