# Broken twin of corpus/cluster/sm90_deepgemm_leader_multicast_a.cake
# (DeepGEMM, A multicast issued by rank 0 only): the producers leave the
# transaction count to the derived expect_tx, which counts only the loads a
# CTA issues (rank 1: B and the scales) and a multicast box once per CTA of
# its mask (rank 0: A twice), so neither CTA's full[s] expects the bytes
# that land on it.  DeepGEMM announces the whole stage in every CTA.  One
# edit: the lm.expect_tx removed.
# expect: sync.tx-imbalance
# may-also: sync.race data.stale-read sync.arrival-overflow
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def deepgemm_leader_multicast_a(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SB: LM.gmem, D: LM.gmem,
                                K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(49664)
    smem_a   = pool.view(offset=0,     shape=(64, 128),  dtype=lm.e4m3, stages=2, swizzle="128B")
    smem_b   = pool.view(offset=16384, shape=(128, 128), dtype=lm.e4m3, stages=2, swizzle="128B")
    smem_sfa = pool.view(offset=49152, shape=(1, 64),   dtype=lm.f32,  stages=2)
    tmp = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc = lm.regs(shape=(64, 128), dtype=lm.f32)
    sa  = lm.regs(shape=(64, 1),   dtype=lm.f32)
    sb  = lm.regs(shape=(1, 1),    dtype=lm.f32)

    producer = lm.role(warps=[0, 1, 2, 3])
    math     = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 128)
    rank  = lm.cluster_rank()
    m_blk = lm.block_idx(1) * 64
    n_blk = lm.block_idx(0) * 128

    with producer:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            if rank == 0:
                smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full, multicast=3)  # expect-error: sync.tx-imbalance
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)  # expect-error: sync.tx-imbalance
            smem_sfa.tma_load(SFA, coords=(k, m_blk), iter=k, barrier=full)  # expect-error: sync.tx-imbalance
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmp, smem_a[k], smem_b[k], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.copy(sa, smem_sfa[k])
            lm.copy(sb, SB, coords=(k, n_blk // 128))
            lm.binary(tmp, tmp, sa, op="mul")
            lm.binary(tmp, tmp, sb, op="mul")
            lm.binary(acc, acc, tmp, op="add")
            lm.fence_proxy()
            lm.arrive(empty, iter=k, cta=0)
            lm.arrive(empty, iter=k, cta=1)
        lm.copy(D, acc, coords=(m_blk, n_blk))
        lm.cluster_sync()
