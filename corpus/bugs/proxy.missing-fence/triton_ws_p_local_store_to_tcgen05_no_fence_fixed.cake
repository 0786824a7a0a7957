# FIXED form of triton_ws_p_local_store_to_tcgen05_no_fence.cake
# (triton-lang/triton PR #8317): the aref lowering emits a
# fence.proxy.async after the generic-proxy local_store of P and before the
# arrive on the aref's full barrier, so the tcgen05 P.V MMA of the MMA
# partition reads the new P.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_100a")
def triton_ws_p_local_store_to_tcgen05_no_fence_fixed(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d,
                                                Out: LM.gmem, seqlen_k: LM.i32):
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(114688)
    smem_q  = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=49152, shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)
    o     = lm.regs(shape=(128, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(128, 1), dtype=lm.f32)

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
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)    # aref full
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)    # aref empty

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
        for j in lm.range(0, n_blocks):
            lm.wait(k_full, iter=j)
            if j > 0:
                lm.wait(p_full, iter=j - 1)                 # S of block j - 1 consumed
            lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)
            lm.mma_commit(barrier=k_empty, iter=j)
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.wait(v_full, iter=j)
            lm.mma(tmem_o, smem_p[j], smem_vt[j], init=(j == 0))
            lm.mma_commit(barrier=v_empty, iter=j)
            lm.mma_commit(barrier=p_empty, iter=j)

    with soft:
        for j in lm.range(0, n_blocks):
            lm.wait(s_full, iter=j)
            lm.copy(s, tmem_s)
            lm.reduce(m_i, s, op="max", axis=1)
            lm.binary(s, s, m_i, op="sub")
            lm.unary(s, s, op="exp2")
            lm.wait(p_empty, iter=j - 1)                   # aref get_empty
            lm.copy(smem_p[j], s)                          # local_store P (generic proxy)
            lm.fence_proxy()                               # the fix
            lm.arrive(p_full, iter=j)                      # aref put
        lm.wait(p_empty, iter=n_blocks - 1)                # the last P.V MMA completed
        lm.copy(o, tmem_o)
        lm.copy(Out, o, coords=(q0, head * 64))
