# FIXED form of deepgemm_kgrouped_multicast_straddle.cake (deepseek-ai/DeepGEMM
# PR #415): both CTAs of the cluster decide multicast from the same facts
# (both blocks of the cluster lie in one group), so either both multicast
# their halves of one B tile or both load their own B.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def deepgemm_kgrouped_multicast_straddle_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32, group_blocks: LM.i32):
    lm.assume(K > 0)
    lm.assume(group_blocks > 0)
    pool    = lm.smem(65536)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_bh = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    rank    = lm.cluster_rank()
    blk     = lm.block_idx(0)
    group   = blk // group_blocks
    m_blk   = (blk % group_blocks) * 64

    with load:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            lm.expect_tx(full, 24576, iter=k)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            if (blk - rank) // group_blocks == (blk - rank + 1) // group_blocks:
                smem_bh[2 * (k % 2) + rank].tma_load(B, coords=(group * 128 + 64 * rank, k * 64), iter=k,
                                                     barrier=full, multicast=3)
            else:
                smem_b.tma_load(B, coords=(group * 128, k * 64), iter=k, barrier=full)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if (blk - rank) // group_blocks == (blk - rank + 1) // group_blocks:
                lm.arrive(empty, iter=k, cta=0)
                lm.arrive(empty, iter=k, cta=1)
            else:
                lm.arrive(empty, iter=k, count=2)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(blk * 64, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()
