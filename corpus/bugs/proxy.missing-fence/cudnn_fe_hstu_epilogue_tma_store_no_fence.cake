# BUG (proxy.missing-fence): NVIDIA/cudnn-frontend PR #784 ("Fix HSTU TMA
# store synchronization", merged 2026-08-28; a follow-up to #487).
# python/cudnn/hstu_attention/_kernels/hstu_fwd.py: the epilogue writes the
# output tile sO through the generic shared-memory proxy, synchronizes its
# warps with a named barrier, and one thread issues the SMEM-to-GMEM TMA
# store.  "The barrier orders the participating threads, but the TMA engine
# reads through the async proxy and requires an explicit
# fence.proxy.async.shared::cta.  Without that fence, CUTLASS DSL 4.5.x
# could occasionally store partially visible sO data" (120 mismatched BF16
# elements between two identical launches under a four-worker CI job).  The
# fix publishes the epilogue's writes to the async proxy (every writing
# thread fences) before the barrier that hands them to the storing thread.
# Modelled (sm_100a, one 128-row Q tile per CTA, head_dim 64, KV tiles of
# 64): load warp, MMA warp (S = Q K^T into TMEM, O += P V), and the
# compute warpgroup as four single-warp instances, each owning its TMEM
# lane quarter: S -> registers, HSTU's SiLU (x * sigmoid(x), through exp2 /
# recip / mul), P rows to shared memory (fenced: that hand-off was right),
# and in the epilogue its 32 rows of O to sO, the named barrier, and warp
# 0's TMA store.  Left out: the masks, the relative attention bias, the
# scaling by 1 / max_seqlen.
# Fix: cudnn_fe_hstu_epilogue_tma_store_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def cudnn_fe_hstu_epilogue_tma_store_no_fence(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d, n_kv: LM.i32):
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
        # sO (generic proxy)
        lm.copy(smem_o[0][r:r + 32, :], o_r)   # expect-error: proxy.missing-fence
        # BUG: no fence.proxy.async.shared::cta before the barrier
        lm.sync(epi_bar)
        if w == 0:
            smem_o.tma_store(O, coords=(m0, 0), stage=0)                     # expect-error: proxy.missing-fence
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
