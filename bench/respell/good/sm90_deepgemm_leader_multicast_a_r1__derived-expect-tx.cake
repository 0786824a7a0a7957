# respells: corpus/bugs/sync.tx-imbalance/deepgemm_leader_multicast_derived_expect_tx.cake
# change: every ring op with stage=k % 2 (the producer's wait with an explicit phase under a
# guard, implicit phases elsewhere), the expect_tx bytes as 64 * 128 + 128 * 128 + 64 * 4,
# the leader test as rank < 1 and the mask as 2 * 2 - 1, the loads in reverse order, the two
# remote releases as a loop over the CTAs, operands named by slot.
# lower: unsupported (the A-scale row of the SFA stage, 1 x 64 in shared memory, read into a 64 x 1 column fragment)
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
            s = k % 2
            if k > 1:
                lm.wait(empty, stage=s, phase=k // 2 - 1)
            smem_sfa.tma_load(SFA, coords=(k, m_blk), stage=s, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, 128 * k), stage=s, barrier=full)
            if rank < 1:
                smem_a.tma_load(A, coords=(m_blk, 128 * k), stage=s, barrier=full, multicast=2 * 2 - 1)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 2)
            lm.mma(tmp, smem_a[k % 2], smem_b[k % 2], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.copy(sa, smem_sfa[k % 2])
            lm.copy(sb, SB, coords=(k, n_blk // 128))
            lm.binary(tmp, tmp, sa, op="mul")
            lm.binary(tmp, tmp, sb, op="mul")
            lm.binary(acc, acc, tmp, op="add")
            lm.fence_proxy()
            for c in lm.range(0, 2):
                lm.arrive(empty, stage=k % 2, cta=c)
        lm.copy(D, acc, coords=(m_blk, n_blk))
        lm.cluster_sync()
