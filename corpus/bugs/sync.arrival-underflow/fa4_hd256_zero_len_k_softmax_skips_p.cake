# BUG (sync.arrival-underflow): Dao-AILab/flash-attention PR #2568 "[Cute,Sm100]
# allow for zero length sequences in hdim 256 kernels" (merged 2026-05-16;
# "Forward: have softmax execute one dummy iteration to not hang for
# zero-length K").  flash_attn/cute/sm100_hd256_2cta_fmha_forward.py, the
# dedicated head_dim-256 SM100 forward (softmax warps 0-3, correction 4-7,
# MMA warp 8, load warp 9; one Q tile per CTA, is_persistent = False).
# The load and MMA warps unroll the KV loop with a peeled first K and a
# peeled last V ("K0 ... Ki, Vi-1 ... Vend"; the MMA's `else` branch for
# seqlen_kv_loop_steps <= 1 issues QK0 and PVend), so they always run at
# least one QK and one PV, and PVend waits on p_mma_consumer for a P.  The
# softmax warps loop `if n_block_max > n_block_min: for n_tile in
# range(n_block_max - n_block_min)`: for a varlen batch entry with
# seqlen_k == 0 they run no step, publish no P, and the MMA warp waits for
# it forever (the correction warps then wait for an O that never comes).
# Modelled: one CTA of the 2-CTA pair (the leader, which issues the MMAs);
# n_steps = n_block_max - n_block_min (zero for an empty K); the peeled
# loops as one loop of max(n_steps, 1) blocks; K and V as two 2-stage rings
# (the kernel's kv_stage = 4 ring holds both); P through shared memory (the
# IR's MMA reads its A operand from smem; the kernel keeps P in TMEM over
# S); row statistics to the correction warps through smem.
# Fix: fa4_hd256_zero_len_k_softmax_skips_p_fixed.cake.
# expect: sync.arrival-underflow
@cake.schedule(target="sm_100a")
def fa4_hd256_zero_len_k_softmax_skips_p(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                                         n_steps: LM.i32):
    lm.assume(n_steps >= 0)
    pool    = lm.smem(150528)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=49152,  shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=114688, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_sc = pool.view(offset=131072, shape=(128, 1),   dtype=lm.f32,  stages=2)
    smem_l  = pool.view(offset=132096, shape=(128, 1),   dtype=lm.f32,  stages=1)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=256, width=64,  shape=(128, 64),  dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)
    m_i   = lm.regs(shape=(128, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(128, 1), dtype=lm.f32)
    sc    = lm.regs(shape=(128, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(128, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(128, 1), dtype=lm.f32)
    o     = lm.regs(shape=(128, 64), dtype=lm.f32)
    scale = lm.regs(shape=(128, 1), dtype=lm.f32)
    l_fin = lm.regs(shape=(128, 1), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    corr = lm.role(warps=[4, 5, 6, 7])
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])

    two      = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    k_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    v_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    sc_full  = lm.barrier(prod=[soft], cons=[corr], init_count=1, pipeline=two)
    sc_empty = lm.barrier(prod=[corr], cons=[soft], init_count=1, pipeline=two)
    s_full   = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    p_full   = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    o_done   = lm.barrier(count=1, prod=[mma], cons=[soft, corr], init_count=1)
    o_ready  = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)
    l_full   = lm.barrier(count=1, prod=[soft], cons=[corr], init_count=1)

    n_kv = max(n_steps, 1)                 # K0 and Vend are peeled: at least one block
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with load:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_kv):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 128, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            smem_vt.tma_load(Vt, coords=(head, 0, j * 128), iter=j, barrier=v_full)

    with mma:
        lm.wait(q_full, stage=0)
        lm.wait(k_full, iter=0)
        lm.mma(tmem_s, smem_q[0], smem_k[0], init=True)          # QK0
        lm.mma_commit(barrier=k_empty, iter=0)
        lm.mma_commit(barrier=s_full, iter=0)
        for j in lm.range(0, n_kv):
            lm.wait(p_full, iter=j)  # expect-error: sync.arrival-underflow
            if j + 1 < n_kv:
                lm.wait(k_full, iter=j + 1)
                lm.mma(tmem_s, smem_q[0], smem_k[j + 1], init=True)
                lm.mma_commit(barrier=k_empty, iter=j + 1)
                lm.mma_commit(barrier=s_full, iter=j + 1)
            lm.wait(v_full, iter=j)
            if j > 0:
                lm.wait(o_ready, iter=j - 1)                      # O rescaled by the correction
            lm.mma(tmem_o, smem_p[0], smem_vt[j], init=(j == 0))  # PV
            lm.mma_commit(barrier=v_empty, iter=j)
            lm.mma_commit(barrier=o_done, iter=j)

    with soft:
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        for j in lm.range(0, n_steps):                            # BUG: no step for an empty K
            lm.wait(s_full, iter=j)
            lm.tmem_load(s, tmem_s)
            lm.tmem_load_wait()
            lm.reduce(m_new, s, op="max", axis=1)
            lm.binary(m_new, m_new, m_i, op="max")
            lm.binary(sc, m_i, m_new, op="sub")
            lm.unary(sc, sc, op="exp2")
            lm.binary(s, s, m_new, op="sub")
            lm.unary(s, s, op="exp2")
            lm.reduce(rsum, s, op="sum", axis=1)
            lm.binary(l_i, l_i, sc, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            lm.wait(sc_empty, iter=j - 2)
            lm.copy(smem_sc[j], sc)
            lm.arrive(sc_full, iter=j)
            if j > 0:
                lm.wait(o_done, iter=j - 1)                       # PV j-1 has read smem_p
            lm.copy(smem_p[0], s)
            lm.fence_proxy()
            lm.arrive(p_full, iter=j)
        lm.copy(smem_l[0], l_i)                                   # store_sum_max
        lm.arrive(l_full, stage=0)

    with corr:
        for j in lm.range(0, n_steps):
            lm.wait(sc_full, iter=j)
            lm.copy(scale, smem_sc[j])
            lm.arrive(sc_empty, iter=j)
            if j > 0:
                lm.wait(o_done, iter=j - 1)
                lm.tmem_load(o, tmem_o)
                lm.tmem_load_wait()
                lm.binary(o, o, scale, op="mul")
                lm.tmem_store(tmem_o, o)
                lm.tmem_store_wait()
                lm.arrive(o_ready, iter=j - 1)
        lm.wait(o_done, iter=n_kv - 1)  # expect-error: sync.arrival-underflow
        lm.tmem_load(o, tmem_o)
        lm.tmem_load_wait()
        lm.wait(l_full, stage=0)
        lm.copy(l_fin, smem_l[0])
        lm.unary(l_fin, l_fin, op="recip")
        lm.binary(o, o, l_fin, op="mul")
        lm.copy(smem_o[0], o)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
