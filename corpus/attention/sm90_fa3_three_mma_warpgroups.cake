# FlashAttention-3 forward on Hopper, head dim 64: THREE MMA warpgroups
# (kBlockM = 192, kBlockN = 128, Mma1_is_RS, IntraWGOverlap; hopper/
# tile_size.h tile_size_fwd_sm90) taking turns on the tensor cores through
# the round-robin "warp scheduler" named barriers (Dao-AILab/flash-attention
# hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp, UseSchedulerBarrier):
#  * warp_scheduler_barrier_sync() is bar.sync(256, WarpSchedulerWG1 - 1 +
#    wg) on the warpgroup's own barrier; warp_scheduler_barrier_arrive() is
#    bar.arrive(256, WarpSchedulerWG1 + next_WG) with next_WG = cur_WG + 1
#    wrapping to 0 for three warpgroups - so barrier i is shared by
#    warpgroup i (sync) and warpgroup i - 1 (arrive), a 3-cycle.
#  * mma_init: the first MMA warpgroup arrives on its own barrier (in the
#    place of the third) so it issues first.  The third warpgroup's last
#    arrive finds no bar.sync (FA3 leaves that generation half-full).
#  * intra-warpgroup overlap as in attention/sm90_fa3_intra_wg_overlap.cake:
#    S_j and P_{j-1} V_{j-1} issued back to back between sync and arrive,
#    warpgroup_wait<1> retires S_j -> release K_j, softmax, wait<0> ->
#    release V_{j-1}.  K/V empty slots take one arrival per warpgroup (3).
#  * scaled down to a key block of 64 (kBlockN = 128 in FA3).
#  * each warpgroup writes its 64 rows of O through its own staging slot
#    (FA3's epilogue stages all 192 rows and one thread issues the store
#    after a named barrier; the per-warpgroup store keeps the file short).
# Mutant: bugs/sync.deadlock/sm90_fa3_three_wg_no_first_scheduler_signal.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def fa3_fwd_three_mma_warpgroups(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
        seqlen_q: LM.i32, seqlen_k: LM.i32):
    lm.assume(seqlen_q > 0)
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(81920)
    smem_q  = pool.view(offset=0,     shape=(192, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=24576, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=40960, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o  = pool.view(offset=57344, shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    s_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    p     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_blk = lm.regs(shape=(64, 1), dtype=lm.f32)
    corr  = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(64, 1), dtype=lm.f32)

    producer = lm.role(warps=[0, 1, 2, 3], regs=32)
    wg0      = lm.role(warps=[4, 5, 6, 7], regs=160)
    wg1      = lm.role(warps=[8, 9, 10, 11], regs=160)
    wg2      = lm.role(warps=[12, 13, 14, 15], regs=160)

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[wg0, wg1, wg2], init_count=1)
    k_full  = lm.barrier(prod=[producer], cons=[wg0, wg1, wg2], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[wg0, wg1, wg2], cons=[producer], init_count=3, pipeline=kv)
    v_full  = lm.barrier(prod=[producer], cons=[wg0, wg1, wg2], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[wg0, wg1, wg2], cons=[producer], init_count=3, pipeline=kv)
    # WarpSchedulerWG1..3: 256 threads each, the waiting warpgroup and the one before it
    sched0  = lm.named_barrier(roles=[wg0, wg2])
    sched1  = lm.named_barrier(roles=[wg1, wg0])
    sched2  = lm.named_barrier(roles=[wg2, wg1])

    n_blocks = lm.cdiv(seqlen_k, 64)
    q0   = lm.block_idx(0) * 192
    head = lm.block_idx(1)

    with producer:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 64, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)

    with wg0:
        m0 = 0
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        # mma_init: WG1 gets the very first signal (an arrival in WG3's place)
        lm.bar_arrive(sched0)
        lm.wait(q_full, stage=0)
        # block 0: S_0 alone
        lm.wait(k_full, iter=0)
        lm.sync(sched0)
        lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[0], init=True)
        lm.mma_commit()
        lm.bar_arrive(sched1)
        lm.mma_wait(pending=0)
        lm.arrive(k_empty, iter=0)
        lm.binary(s_acc, s_acc, 0.18033688, op="mul")
        lm.reduce(m_i, s_acc, op="max", axis=1)
        lm.binary(s_acc, s_acc, m_i, op="sub")
        lm.unary(s_acc, s_acc, op="exp2")
        lm.reduce(l_i, s_acc, op="sum", axis=1)
        lm.copy(p, s_acc)
        for j in lm.range(1, n_blocks):
            lm.wait(k_full, iter=j)
            lm.sync(sched0)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.wait(v_full, iter=j - 1)
            lm.mma(o_acc, p, smem_vt[j - 1], init=False)
            lm.mma_commit()
            lm.bar_arrive(sched1)
            lm.mma_wait(pending=1)
            lm.arrive(k_empty, iter=j)
            # softmax of S_j overlaps the PV wgmma of block j-1
            lm.binary(s_acc, s_acc, 0.18033688, op="mul")
            lm.reduce(m_blk, s_acc, op="max", axis=1)
            lm.binary(m_new, m_i, m_blk, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s_acc, s_acc, m_new, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j - 1)
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(p, s_acc)
        # tail: the last PV
        lm.wait(v_full, iter=n_blocks - 1)
        lm.mma(o_acc, p, smem_vt[n_blocks - 1], init=False)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.arrive(v_empty, iter=n_blocks - 1)
        # epilogue: this warpgroup's 64 rows of O
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[0], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with wg1:
        m0 = 64
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        # block 0: S_0 alone
        lm.wait(k_full, iter=0)
        lm.sync(sched1)
        lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[0], init=True)
        lm.mma_commit()
        lm.bar_arrive(sched2)
        lm.mma_wait(pending=0)
        lm.arrive(k_empty, iter=0)
        lm.binary(s_acc, s_acc, 0.18033688, op="mul")
        lm.reduce(m_i, s_acc, op="max", axis=1)
        lm.binary(s_acc, s_acc, m_i, op="sub")
        lm.unary(s_acc, s_acc, op="exp2")
        lm.reduce(l_i, s_acc, op="sum", axis=1)
        lm.copy(p, s_acc)
        for j in lm.range(1, n_blocks):
            lm.wait(k_full, iter=j)
            lm.sync(sched1)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.wait(v_full, iter=j - 1)
            lm.mma(o_acc, p, smem_vt[j - 1], init=False)
            lm.mma_commit()
            lm.bar_arrive(sched2)
            lm.mma_wait(pending=1)
            lm.arrive(k_empty, iter=j)
            # softmax of S_j overlaps the PV wgmma of block j-1
            lm.binary(s_acc, s_acc, 0.18033688, op="mul")
            lm.reduce(m_blk, s_acc, op="max", axis=1)
            lm.binary(m_new, m_i, m_blk, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s_acc, s_acc, m_new, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j - 1)
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(p, s_acc)
        # tail: the last PV
        lm.wait(v_full, iter=n_blocks - 1)
        lm.mma(o_acc, p, smem_vt[n_blocks - 1], init=False)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.arrive(v_empty, iter=n_blocks - 1)
        # epilogue: this warpgroup's 64 rows of O
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[1], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=1)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with wg2:
        m0 = 128
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        # block 0: S_0 alone
        lm.wait(k_full, iter=0)
        lm.sync(sched2)
        lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[0], init=True)
        lm.mma_commit()
        lm.bar_arrive(sched0)
        lm.mma_wait(pending=0)
        lm.arrive(k_empty, iter=0)
        lm.binary(s_acc, s_acc, 0.18033688, op="mul")
        lm.reduce(m_i, s_acc, op="max", axis=1)
        lm.binary(s_acc, s_acc, m_i, op="sub")
        lm.unary(s_acc, s_acc, op="exp2")
        lm.reduce(l_i, s_acc, op="sum", axis=1)
        lm.copy(p, s_acc)
        for j in lm.range(1, n_blocks):
            lm.wait(k_full, iter=j)
            lm.sync(sched2)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.wait(v_full, iter=j - 1)
            lm.mma(o_acc, p, smem_vt[j - 1], init=False)
            lm.mma_commit()
            lm.bar_arrive(sched0)
            lm.mma_wait(pending=1)
            lm.arrive(k_empty, iter=j)
            # softmax of S_j overlaps the PV wgmma of block j-1
            lm.binary(s_acc, s_acc, 0.18033688, op="mul")
            lm.reduce(m_blk, s_acc, op="max", axis=1)
            lm.binary(m_new, m_i, m_blk, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s_acc, s_acc, m_new, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j - 1)
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(p, s_acc)
        # tail: the last PV
        lm.wait(v_full, iter=n_blocks - 1)
        lm.mma(o_acc, p, smem_vt[n_blocks - 1], init=False)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.arrive(v_empty, iter=n_blocks - 1)
        # epilogue: this warpgroup's 64 rows of O
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[2], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=2)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
