# FIX of cutlass_ex77_fmha_stats_tmem_store_no_wait.cake: NVIDIA/cutlass
# PR #3653 (and PR #2687): cutlass::arch::fence_view_async_tmem_store()
# (tcgen05.wait::st) between each tcgen05.st of the row statistics and the
# pipeline_c producer_commit that publishes them to the correction
# warpgroup, at both sites (every KV tile, and final_call).  Same model as
# the broken file.
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_ex77_fmha_stats_tmem_store_wait_fixed(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(131072)
    smem_q  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=49152,  shape=(64, 128), dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.bf16)
    smem_o  = pool.view(offset=114688, shape=(128, 64), dtype=lm.bf16)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    tmem_st = lm.tmem(cols=192, width=32,  shape=(128, 32),  dtype=lm.f32)   # row max, row sum (2 used)
    s_r     = lm.regs(shape=(128, 128), dtype=lm.f32)
    st_w    = lm.regs(shape=(128, 32), dtype=lm.f32)
    st_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    rsum    = lm.regs(shape=(128, 1), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 64), dtype=lm.f32)

    softmax    = lm.role(warps=[0, 1, 2, 3])
    correction = lm.role(warps=[4, 5, 6, 7])
    mma        = lm.role(warps=[8])
    load       = lm.role(warps=[9])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    v_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    kv_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    s_full   = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    s_empty  = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_full   = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_empty  = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    c_full   = lm.barrier(count=1, prod=[softmax], cons=[correction], init_count=1)   # pipeline_c
    c_empty  = lm.barrier(count=1, prod=[correction], cons=[softmax], init_count=1)
    o_full   = lm.barrier(count=1, prod=[mma], cons=[correction], init_count=1)

    m0 = 128 * lm.block_idx(0)

    with load:
        smem_q.tma_load(Q, coords=(m0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_kv):
            lm.wait(kv_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(128 * j, 0), iter=j, barrier=k_full)
            smem_v.tma_load(V, coords=(0, 128 * j), iter=j, barrier=v_full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_kv):
            lm.wait(k_full, iter=j)
            lm.wait(s_empty, iter=j - 1)
            lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)                 # S = Q K^T
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(v_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.mma(tmem_o, smem_p[0], smem_v[j], init=(j == 0))             # O += P V
            lm.mma_commit(barrier=kv_empty, iter=j)
            lm.mma_commit(barrier=p_empty, iter=j)
        lm.mma_commit(barrier=o_full, stage=0)

    with softmax:
        lm.fill(st_w, 0.0)
        for j in lm.range(0, n_kv):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_r, tmem_s)
            lm.tmem_load_wait()
            lm.arrive(s_empty, iter=j)
            lm.unary(s_r, s_r, op="exp2")
            lm.reduce(rsum, s_r, op="sum", axis=1)
            lm.binary(st_w[:, 1:2], st_w[:, 1:2], rsum, op="add")
            lm.wait(p_empty, iter=j - 1)
            lm.copy(smem_p[0], s_r)
            lm.fence_proxy()
            lm.arrive(p_full, iter=j)
            lm.wait(c_empty, iter=j - 1)
            lm.tmem_store(tmem_st, st_w)                                    # old / new row max
            lm.tmem_store_wait()                                            # the fix: fence_view_async_tmem_store()
            lm.arrive(c_full, iter=j)
        lm.wait(c_empty, iter=n_kv - 1)
        lm.tmem_store(tmem_st, st_w)                                        # final_call: row max, row sum
        lm.tmem_store_wait()                                                # the fix, final_call
        lm.arrive(c_full, iter=n_kv)

    with correction:
        for j in lm.range(0, n_kv + 1):
            lm.wait(c_full, iter=j)
            lm.tmem_load(st_r, tmem_st)
            lm.tmem_load_wait()
            lm.arrive(c_empty, iter=j)
        lm.wait(o_full, stage=0)
        lm.tmem_load(o_r, tmem_o)
        lm.tmem_load_wait()
        lm.binary(o_r, o_r, st_r[:, 1:2], op="div")
        lm.copy(smem_o[0], o_r)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(m0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
