# FIX of cudnn_fe_hstu_epilogue_tma_store_no_fence.cake: NVIDIA/cudnn-frontend
# PR #784 (merged 2026-08-28): every epilogue thread executes
# fence.proxy.async.shared::cta after its sO writes and before the named
# barrier, so the storing thread's TMA store (async proxy) reads the whole
# tile.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_100a")
def cudnn_fe_hstu_epilogue_tma_store_fenced_fixed(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(81920)
    smem_q  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=32768,  shape=(64, 64),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16)
    smem_o  = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16)
    tmem_s  = lm.tmem(cols=0,   width=64,  shape=(128, 64),  dtype=lm.f32)
    tmem_o  = lm.tmem(cols=64,  width=64,  shape=(128, 64),  dtype=lm.f32)
    s_r     = lm.regs(shape=(32, 64), dtype=lm.f32)
    g_r     = lm.regs(shape=(32, 64), dtype=lm.f32)
    o_r     = lm.regs(shape=(32, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3], group=1)     # instance w: TMEM lanes 32w..32w+31
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])
    epi_bar = lm.named_barrier(roles=[compute])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    v_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    kv_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    s_full   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    s_empty  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=4)
    p_full   = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=4)
    p_empty  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    o_full   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)

    m0 = 128 * lm.block_idx(0)

    with load:
        smem_q.tma_load(Q, coords=(m0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_kv):
            lm.wait(kv_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(64 * j, 0), iter=j, barrier=k_full)
            smem_v.tma_load(V, coords=(0, 64 * j), iter=j, barrier=v_full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_kv):
            lm.wait(k_full, iter=j)
            lm.wait(s_empty, iter=j - 1)
            lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)                 # S = Q K^T
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(v_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.mma(tmem_o, smem_p[0], smem_v[j], init=(j == 0))             # O += SiLU(S) V
            lm.mma_commit(barrier=kv_empty, iter=j)
            lm.mma_commit(barrier=p_empty, iter=j)
        lm.mma_commit(barrier=o_full, stage=0)

    with compute:
        w = lm.instance()
        r = 32 * w
        for j in lm.range(0, n_kv):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_r, tmem_s[r:r + 32, :])
            lm.tmem_load_wait()
            lm.arrive(s_empty, iter=j)
            lm.unary(g_r, s_r, op="neg")                                    # SiLU(x) = x / (1 + exp(-x))
            lm.unary(g_r, g_r, op="exp2")
            lm.binary(g_r, g_r, 1.0, op="add")
            lm.unary(g_r, g_r, op="recip")
            lm.binary(s_r, s_r, g_r, op="mul")
            lm.wait(p_empty, iter=j - 1)
            lm.copy(smem_p[0][r:r + 32, :], s_r)
            lm.fence_proxy()
            lm.arrive(p_full, iter=j)
        lm.wait(o_full, stage=0)
        lm.tmem_load(o_r, tmem_o[r:r + 32, :])
        lm.tmem_load_wait()
        lm.copy(smem_o[0][r:r + 32, :], o_r)                                 # sO (generic proxy)
        lm.fence_proxy()                                                    # the fix: every writer fences, then the barrier
        lm.sync(epi_bar)
        if w == 0:
            smem_o.tma_store(O, coords=(m0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
