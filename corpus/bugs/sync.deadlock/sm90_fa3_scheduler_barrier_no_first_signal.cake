# BUG (sync.deadlock): attention/sm90_fa3_intra_wg_overlap.cake without
# mma_init's first signal (FA3's WG1 arrives on its own scheduler barrier
# before its first GEMM): each warpgroup's bar.sync on its scheduler
# barrier then waits for the other's bar.arrive, which comes only after
# the other's own bar.sync.  One synchronization edit (the initial
# bar_arrive removed).  Fix: corpus/attention/sm90_fa3_intra_wg_overlap.cake.
# FlashAttention-3 forward on Hopper with intra-warpgroup overlap and the
# inter-warpgroup "warp scheduler" barriers (Dao-AILab/flash-attention,
# hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp, IntraWGOverlap = true,
# UseSchedulerBarrier = true; head_dim 64, key block 64).
#  * intra-warpgroup overlap: iteration j issues S_j = Q K_j^T and then
#    O += P_{j-1} V_{j-1} (RS wgmma, P from registers) back to back,
#    warpgroup_wait<1> retires S_j only (groups retire in order) -> release
#    K_j, the softmax of S_j runs while the PV wgmma of block j-1 is still
#    in flight; warpgroup_wait<0> -> release V_{j-1}, rescale O, convert
#    P_j.  The first block issues S_0 alone; the tail issues the last PV.
#  * warp scheduler barriers: named barrier sched_i (256 threads = both
#    consumer warpgroups) gates warpgroup i's GEMM issue:
#    warp_scheduler_barrier_sync() is bar.sync on its own barrier,
#    warp_scheduler_barrier_arrive() a bar.arrive on the other's; in
#    mma_init warpgroup 0 (FA3's WG1) arrives on its own barrier so it
#    issues first.  The last arrive of warpgroup 1 finds no bar.sync
#    (FA3 leaves that generation half-full at exit).  The ordering only
#    interleaves the two warpgroups' wgmma issue; smem safety comes from
#    the K/V rings (each empty slot gets one arrival per warpgroup).
# expect: sync.deadlock
@cake.schedule(target="sm_90a")
def fa3_fwd_intra_wg_overlap(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                             seqlen_q: LM.i32, seqlen_k: LM.i32):
    lm.assume(seqlen_q > 0)
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o  = pool.view(offset=49152, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    s_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    p     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_blk = lm.regs(shape=(64, 1), dtype=lm.f32)
    corr  = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(64, 1), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumers], init_count=1)
    k_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    v_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    sched0  = lm.named_barrier(roles=[consumers])
    sched1  = lm.named_barrier(roles=[consumers])

    n_blocks = lm.cdiv(seqlen_k, 64)
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with producer:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 64, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        # mma_init: the first warpgroup gets the very first signal
        lm.wait(q_full, stage=0)
        # block 0: S_0 alone
        lm.wait(k_full, iter=0)
        if lm.instance() == 0:
            lm.sync(sched0)  # expect-error: sync.deadlock
        else:
            lm.sync(sched1)  # expect-error: sync.deadlock
        lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[0], init=True)
        lm.mma_commit()
        if lm.instance() == 0:
            lm.bar_arrive(sched1)
        else:
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
            if lm.instance() == 0:
                lm.sync(sched0)
            else:
                lm.sync(sched1)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.wait(v_full, iter=j - 1)
            lm.mma(o_acc, p, smem_vt[j - 1], init=False)
            lm.mma_commit()
            if lm.instance() == 0:
                lm.bar_arrive(sched1)
            else:
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
        # epilogue
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[lm.instance()], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
