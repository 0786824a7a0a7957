# DeepGEMM's FP8 GEMM (deepseek-ai/DeepGEMM, deep_gemm/include/deep_gemm/
# fp8_gemm.cuh and tma_utils.cuh, kNumTMAMulticast = 2, multicast on A) on a
# 2x1 cluster whose CTAs compute horizontally adjacent tiles that share the
# same A rows:
#  * tma_copy with multicast: only the CTA of rank 0 issues the A box, with
#    the CTA mask (1 << 2) - 1, landing in both CTAs and completing its
#    bytes on both CTAs' full[s]; each CTA loads its own B tile and its own
#    A-scale row (SFA, a TMA load on the same barrier).  The transaction
#    count is announced by each CTA's producer for the whole stage
#    (full_barrier.arrive_and_expect_tx(SMEM_A + SMEM_B + SMEM_SFA)), so the
#    schedule writes the expect_tx (the derived one would count only the
#    loads a CTA issues).  Rank 0's multicast may land on rank 1's full[s]
#    before rank 1's producer announces the bytes: the transaction count
#    goes negative inside the phase, which cannot complete while the
#    announcing arrival is missing.
#  * two math warpgroups per CTA: wait full, FP8 wgmma into a temporary,
#    wait, promote with the A-scale row (ld.shared of SFA) and the B scale
#    (global), fence, then empty_barrier_arrive: lanes < kNumTMAMulticast
#    arrive on empty[s] of CTA lane_idx, so each slot's empty barrier counts
#    2 warpgroups x 2 CTAs = 4 arrivals (rank 0's A multicast overwrites
#    the slot in both CTAs).
#  * cluster_sync after the barrier initialization and before exit.
# Kept out of corpus/: two math warpgroups per CTA in a 2-CTA cluster
# exhaust the checker's budgets (docs/known-limits.md "A leader-issued
# multicast with two math warpgroups per CTA is *unknown*"); the corpus
# form with one math warpgroup is corpus/cluster/sm90_deepgemm_leader_multicast_a.cake.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def deepgemm_leader_multicast_a(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SB: LM.gmem, D: LM.gmem,
                                K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(99840)
    smem_a   = pool.view(offset=0,     shape=(128, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    smem_b   = pool.view(offset=49152, shape=(128, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    smem_sfa = pool.view(offset=98304, shape=(1, 128),   dtype=lm.f32,  stages=3)
    tmp = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc = lm.regs(shape=(64, 128), dtype=lm.f32)
    sa  = lm.regs(shape=(1, 64),   dtype=lm.f32)
    sb  = lm.regs(shape=(1, 1),    dtype=lm.f32)

    producer = lm.role(warps=[0, 1, 2, 3], regs=40)
    math     = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[producer], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[producer], init_count=4, pipeline=pipe)

    k_tiles = lm.cdiv(K, 128)
    rank  = lm.cluster_rank()
    m_blk = lm.block_idx(1) * 128
    n_blk = lm.block_idx(0) * 128

    with producer:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            lm.expect_tx(full, 33280, iter=k)
            if rank == 0:
                smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full, multicast=3)
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)
            smem_sfa.tma_load(SFA, coords=(k, m_blk), iter=k, barrier=full)
        lm.cluster_sync()

    with math:
        r0 = 64 * lm.instance()
        lm.cluster_sync()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmp, smem_a[k][r0:r0 + 64, :], smem_b[k], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])
            lm.copy(sb, SB, coords=(k, n_blk // 128))
            lm.binary(tmp, tmp, sa, op="mul")
            lm.binary(tmp, tmp, sb, op="mul")
            lm.binary(acc, acc, tmp, op="add")
            lm.fence_proxy()
            lm.arrive(empty, iter=k, cta=0)
            lm.arrive(empty, iter=k, cta=1)
        lm.copy(D, acc, coords=(m_blk + r0, n_blk))
        lm.cluster_sync()
