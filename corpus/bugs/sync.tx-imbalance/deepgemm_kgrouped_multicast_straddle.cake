# BUG (sync.tx-imbalance): DeepGEMM's SM90 k-grouped GEMM with TMA multicast,
# as reported and fixed in deepseek-ai/DeepGEMM PR #415 ("Fix SM90 k-grouped
# GEMM hang and silent corruption when TMA multicast clusters straddle group
# boundaries"; the same hang is PR #429).  The groups' block grids are laid
# out back to back and a cluster is two consecutive blocks, so with an odd
# number of blocks per group one cluster spans two groups (two different B
# operands).  The two CTAs then disagreed on is_tma_multicast_valid(): rank
# 0, the last block of its group, was remapped to "no multicast" and loaded
# its whole B tile itself, while rank 1, the first block of the next group,
# still believed multicast valid, loaded only its half of B (multicast to
# both CTAs) and waited for the other half from rank 0, which never came:
# rank 1's full barrier never receives its transaction bytes and the kernel
# hangs (and rank 0's barrier receives bytes it did not announce).
# Written with the cluster extensions of docs/ir-extensions.md
# (cluster=, lm.cluster_rank(), multicast=, a finer view aliasing B, remote
# arrive cta=) and an explicit expect_tx per k-block (A + B bytes).
# Modelled: a 2x1 cluster, a TMA warp and one math warpgroup per CTA, a
# 2-slot ring; group g uses B rows [128 g, 128 g + 128); the empty barrier
# takes 2 arrivals (both CTAs' math, or the own math twice without
# multicast, as DeepGEMM's empty_barrier_arrive).  Unequal K per group (the
# empty-barrier phase desync the PR also fixes) is left out.
# Fix: deepgemm_kgrouped_multicast_straddle_fixed.cake (the validity is
# computed from the cluster's first block, the same in both CTAs).
# expect: sync.tx-imbalance
# may-also: sync.deadlock sync.race data.stale-read sync.arrival-overflow sync.arrival-underflow sync.cluster-exit sync.stale-phase sync.lost-phase
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def deepgemm_kgrouped_multicast_straddle(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32, group_blocks: LM.i32):
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
            lm.expect_tx(full, 24576, iter=k)   # expect-error: sync.tx-imbalance
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            if (rank == 1) or ((blk + 1) % group_blocks != 0):
                smem_bh[2 * (k % 2) + rank].tma_load(B, coords=(group * 128 + 64 * rank, k * 64), iter=k,
                                                     barrier=full, multicast=3)
            else:
                smem_b.tma_load(B, coords=(group * 128, k * 64), iter=k, barrier=full)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)   # expect-error: sync.tx-imbalance
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if (rank == 1) or ((blk + 1) % group_blocks != 0):
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
