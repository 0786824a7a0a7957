# BUG (sync.race): corpus/attention/sm100_fa4_persistent_correction_tmem.cake
# (FlashAttention-4 layout: a correction warpgroup rescales the O
# accumulator in TMEM between key blocks, tcgen05.ld -> O *= scale ->
# tcgen05.st, then arrives o_ready for the MMA warp's next PV MMA) without
# the tcgen05.wait::st between the tcgen05.st and the arrive: the store is
# asynchronous, so the PV MMA that o_ready lets go may write O while the
# rescaled values are still being written (the same missing wait as
# NVIDIA/cutlass example 77's stats store, corpus/bugs/sync.race/
# cutlass_ex77_fmha_stats_tmem_store_no_wait.cake).
# Fix: corpus/attention/sm100_fa4_persistent_correction_tmem.cake
# (lm.tmem_store_wait() before lm.arrive(o_ready, ...)).
# expect: sync.race
# may-also: sync.async-at-exit
@cake.schedule(target="sm_100a")
def fa4_fwd_sm100_persistent_correction(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                                        seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool    = lm.smem(150528)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_k  = pool.view(offset=32768,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=65536,  shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=98304,  shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=131072, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_sc = pool.view(offset=147456, shape=(128, 1),   dtype=lm.f32,  stages=2)
    smem_l  = pool.view(offset=148480, shape=(128, 1),   dtype=lm.f32,  stages=1)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
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
    q_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    q_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
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
    o_empty  = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)
    l_full   = lm.barrier(count=1, prod=[soft], cons=[corr], init_count=1)
    l_empty  = lm.barrier(count=1, prod=[corr], cons=[soft], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(q_empty, iter=t - 2)
            smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_empty, iter=g - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=g, barrier=k_full)
                lm.wait(v_empty, iter=g - 2)
                smem_vt.tma_load(Vt, coords=(0, 0, j * 128), iter=g, barrier=v_full)

    with mma:
        for t in lm.range(0, T):
            g0 = t * n_blocks
            lm.wait(q_full, iter=t)
            lm.wait(k_full, iter=g0)
            lm.mma(tmem_s, smem_q[t], smem_k[g0], init=True)
            lm.mma_commit(barrier=k_empty, iter=g0)
            lm.mma_commit(barrier=s_full, iter=g0)
            for j in lm.range(0, n_blocks):
                g = g0 + j
                lm.wait(p_full, iter=g)
                if j + 1 < n_blocks:
                    lm.wait(k_full, iter=g + 1)
                    lm.mma(tmem_s, smem_q[t], smem_k[g + 1], init=True)
                    lm.mma_commit(barrier=k_empty, iter=g + 1)
                    lm.mma_commit(barrier=s_full, iter=g + 1)
                lm.wait(v_full, iter=g)
                if j == 0:
                    lm.wait(o_empty, iter=t - 1)
                else:
                    lm.wait(o_ready, iter=g - t - 1)
                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=g)
                lm.mma_commit(barrier=o_done, iter=g)
            if t + 2 < T:
                lm.mma_commit(barrier=q_empty, iter=t)

    with soft:
        for t in lm.range(0, T):
            lm.fill(m_i, -1e30)
            lm.fill(l_i, 0.0)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(s_full, iter=g)
                lm.tmem_load(s, tmem_s)
                lm.tmem_load_wait()
                lm.binary(s, s, 0.18033688, op="mul")
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
                lm.wait(sc_empty, iter=g - 2)
                lm.copy(smem_sc[g], sc)
                lm.arrive(sc_full, iter=g)
                if t > 0 or j > 0:
                    lm.wait(o_done, iter=g - 1)
                lm.copy(smem_p[0], s)
                lm.fence_proxy()
                lm.arrive(p_full, iter=g)
            lm.wait(l_empty, iter=t - 1)
            lm.copy(smem_l[0], l_i)
            lm.arrive(l_full, iter=t)

    with corr:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(sc_full, iter=g)
                lm.copy(scale, smem_sc[g])
                lm.arrive(sc_empty, iter=g)
                if j > 0:
                    lm.wait(o_done, iter=g - 1)
                    lm.tmem_load(o, tmem_o)
                    lm.tmem_load_wait()
                    lm.binary(o, o, scale, op="mul")
                    lm.tmem_store(tmem_o, o)
                    lm.arrive(o_ready, iter=g - t - 1)
            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
            lm.arrive(o_empty, iter=t)
            lm.wait(l_full, iter=t)
            lm.copy(l_fin, smem_l[0])
            lm.arrive(l_empty, iter=t)
            lm.unary(l_fin, l_fin, op="recip")
            lm.binary(o, o, l_fin, op="mul")
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(0, q0, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
