# BUG (sync.race): corpus/attention/sm90_fa3_fwd_two_consumer_roles.cake without the
# producer's wait on v_empty: the V load of block j overwrites slot j % 2 while a consumer
# role's PV wgmma of block j - 2 may still read it (the mutant
# corpus/mutants/attention/sm90_fa3_fwd/drop-wait-L58.cake, respelled by helper respell44).
# expect: sync.race
# may-also: data.stale-read sync.arrival-overflow sync.lost-phase
@cake.schedule(target="sm_90a")
def fa3_fwd(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
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

    wg1 = lm.role(warps=[8, 9, 10, 11], regs=240)
    wg0 = lm.role(warps=[4, 5, 6, 7], regs=240)
    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[wg0, wg1], init_count=1)
    k_full  = lm.barrier(prod=[producer], cons=[wg0, wg1], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[wg1, wg0], cons=[producer], init_count=2, pipeline=kv)
    v_full  = lm.barrier(prod=[producer], cons=[wg0, wg1], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[wg1, wg0], cons=[producer], init_count=2, pipeline=kv)

    n_blocks = lm.cdiv(seqlen_k, 64)
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with producer:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        smem_k.tma_load(K, coords=(head, 0, 0), iter=0, barrier=k_full)
        smem_vt.tma_load(Vt, coords=(head, 0, 0), iter=0, barrier=v_full)
        for jj in lm.range(0, n_blocks - 1):
            j = jj + 1
            lm.wait(k_empty, iter=jj - 1)
            smem_k.tma_load(K, coords=(head, 64 * jj + 64, 0), iter=j, barrier=k_full)
            smem_vt.tma_load(Vt, coords=(head, 0, (jj + 1) * 64), iter=jj + 1, barrier=v_full)

    with wg1:
        m0 = 64
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_blocks):
            lm.wait(k_full, iter=j)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(k_empty, iter=j)
            # online softmax (base 2, softmax_scale * log2(e) = 0.18033688 for d=64)
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
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(m_i, m_new)
            lm.copy(p, s_acc)
            lm.wait(v_full, iter=j)
            lm.mma(o_acc, p, smem_vt[j], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j)
        # epilogue
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[1], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=1)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with wg0:
        m0 = 0
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_blocks):
            lm.wait(k_full, iter=j)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(k_empty, iter=j)
            # online softmax (base 2, softmax_scale * log2(e) = 0.18033688 for d=64)
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
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(m_i, m_new)
            lm.copy(p, s_acc)
            lm.wait(v_full, iter=j)
            lm.mma(o_acc, p, smem_vt[j], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j)
        # epilogue
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[0], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
