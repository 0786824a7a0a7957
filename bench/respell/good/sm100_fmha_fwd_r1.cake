# respells: corpus/attention/sm100_fmha_fwd_tcgen05.cake
# change: the one-slot S/P/O barriers addressed with stage=0 and implicit phases (waits and
# commits counted per instance), the MMA warp's loop split: n_blocks - 1 iterations that
# issue the next S MMA unguarded, then the last PV iteration written out; smem_p named by its
# one stage (smem_p[0]) instead of the iteration; the correction guard as `not j == 0`.
# expect: pass
@cake.schedule(target="sm_100a")
def fmha_fwd_sm100(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                   seqlen_q: LM.i32, seqlen_k: LM.i32):
    lm.assume(seqlen_q > 0)
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(147456)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=49152,  shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=114688, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)
    o     = lm.regs(shape=(128, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(128, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(128, 1), dtype=lm.f32)
    corr  = lm.regs(shape=(128, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(128, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(128, 1), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    o_done  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with load:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 128, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            smem_vt.tma_load(Vt, coords=(head, 0, j * 128), iter=j, barrier=v_full)

    with mma:
        lm.wait(q_full, stage=0)
        lm.wait(k_full, iter=0)
        lm.mma(tmem_s, smem_q[0], smem_k[0], init=True)
        lm.mma_commit(barrier=k_empty, iter=0)
        lm.mma_commit(barrier=s_full, stage=0)
        for j in lm.range(0, n_blocks - 1):
            lm.wait(p_full, stage=0)
            lm.wait(k_full, iter=j + 1)
            lm.mma(tmem_s, smem_q[0], smem_k[j + 1], init=True)
            lm.mma_commit(barrier=k_empty, iter=j + 1)
            lm.mma_commit(barrier=s_full, stage=0)
            lm.wait(v_full, iter=j)
            lm.mma(tmem_o, smem_p[0], smem_vt[j], init=(j == 0))
            lm.mma_commit(barrier=v_empty, iter=j)
            lm.mma_commit(barrier=o_done, stage=0)
        last = n_blocks - 1
        lm.wait(p_full, stage=0)
        lm.wait(v_full, iter=last)
        lm.mma(tmem_o, smem_p[0], smem_vt[last], init=(last == 0))
        lm.mma_commit(barrier=v_empty, iter=last)
        lm.mma_commit(barrier=o_done, stage=0)

    with soft:
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        for j in lm.range(0, n_blocks):
            lm.wait(s_full, stage=0)
            lm.copy(s, tmem_s)
            lm.binary(s, s, 0.18033688, op="mul")
            lm.reduce(m_new, s, op="max", axis=1)
            lm.binary(m_new, m_new, m_i, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s, s, m_new, op="sub")
            lm.unary(s, s, op="exp2")
            lm.reduce(rsum, s, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            if not j == 0:
                lm.wait(o_done, stage=0)
                lm.copy(o, tmem_o)
                lm.binary(o, o, corr, op="mul")
                lm.copy(tmem_o, o)
            lm.copy(smem_p[0], s)
            lm.fence_proxy()
            lm.arrive(p_full, stage=0)
        lm.wait(o_done, stage=0)
        lm.copy(o, tmem_o)
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o, o, l_i, op="mul")
        lm.copy(smem_o[0], o)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
