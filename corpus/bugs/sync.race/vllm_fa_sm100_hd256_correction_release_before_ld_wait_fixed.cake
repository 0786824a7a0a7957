# FIXED form of vllm_fa_sm100_hd256_correction_release_before_ld_wait.cake
# (vllm-project/flash-attention PR #182): tcgen05.wait::ld
# (fence_view_async_tmem_load) before the correction warps release the
# statistics and O to their next writers.
# lower: unsupported (tcgen05.ld of 32-column chunks into column slices of one register fragment, the chunked read the kernel does: the lowering moves TMEM to a whole fragment of the same columns)
# expect: pass
@cake.schedule(target="sm_100a")
def vllm_fa_sm100_hd256_correction_ld_wait_then_release_fixed(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d,
                                                         n_tiles: LM.i32, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(131072)
    smem_q  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_p  = pool.view(offset=81920,  shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_o  = pool.view(offset=98304,  shape=(128, 128), dtype=lm.bf16)
    tmem_o  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_s  = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    tmem_st = lm.tmem(cols=256, width=32,  shape=(128, 32), dtype=lm.f32)   # row max / row sum (2 used)
    s_r     = lm.regs(shape=(128, 128), dtype=lm.f32)
    p_r     = lm.regs(shape=(128, 64), dtype=lm.bf16)
    st_w    = lm.regs(shape=(128, 32), dtype=lm.f32)
    st_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    rsum    = lm.regs(shape=(128, 1), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 128), dtype=lm.f32)

    softmax    = lm.role(warps=[0, 1, 2, 3])
    correction = lm.role(warps=[4, 5, 6, 7])
    mma        = lm.role(warps=[8])
    load       = lm.role(warps=[9])

    pipe        = lm.pipeline(stages=2)
    kv_full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    kv_empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    q_full      = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_empty     = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    s_full      = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    s_empty     = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_full      = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_empty     = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    stats_full  = lm.barrier(count=1, prod=[softmax], cons=[correction], init_count=1)
    stats_empty = lm.barrier(count=1, prod=[correction], cons=[softmax], init_count=1)
    o_full      = lm.barrier(count=1, prod=[mma], cons=[correction], init_count=1)
    o_empty     = lm.barrier(count=1, prod=[correction], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, n_tiles):
            m0 = 128 * (lm.block_idx(0) + t * lm.grid_dim(0))
            lm.wait(q_empty, iter=t - 1)
            smem_q.tma_load(Q, coords=(m0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(kv_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(128 * j, 0), iter=it, barrier=kv_full)
                smem_v.tma_load(V, coords=(0, 64 * j), iter=it, barrier=kv_full)

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(q_full, iter=t)
            lm.wait(o_empty, iter=t - 1)                  # the correction warps have read the last tile's O
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(kv_full, iter=it)
                lm.wait(s_empty, iter=it - 1)
                lm.mma(tmem_s, smem_q[t], smem_k[it], init=True)            # S = Q.K^T
                lm.mma_commit(barrier=s_full, iter=it)
                lm.wait(p_full, iter=it)
                lm.mma(tmem_o, smem_p[it], smem_v[it], init=(j == 0))
                lm.mma_commit(barrier=kv_empty, iter=it)
                lm.mma_commit(barrier=p_empty, iter=it)
            lm.mma_commit(barrier=q_empty, iter=t)
            lm.mma_commit(barrier=o_full, iter=t)

    with softmax:
        lm.fill(st_w, 0.0)                                # the row max column (its update left out)
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(s_full, iter=it)
                lm.tmem_load(s_r, tmem_s)
                lm.tmem_load_wait()
                lm.arrive(s_empty, iter=it)
                lm.unary(s_r, s_r, op="exp2")
                lm.reduce(rsum, s_r, op="sum", axis=1)    # this block's row sum (row max left out)
                lm.copy(st_w[:, 1:2], rsum)
                lm.wait(p_empty, iter=it - 1)
                lm.copy(p_r, s_r[:, 0:64])
                lm.copy(smem_p[it], p_r)
                lm.fence_proxy()
                lm.arrive(p_full, iter=it)
                lm.wait(stats_empty, iter=it - 1)
                lm.tmem_store(tmem_st, st_w)
                lm.tmem_store_wait()
                lm.arrive(stats_full, iter=it)

    with correction:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(stats_full, iter=it)
                lm.tmem_load(st_r, tmem_st)
                lm.tmem_load_wait()                       # the fix (PR #182)
                lm.arrive(stats_empty, iter=it)
            # correction_epilog
            lm.wait(o_full, iter=t)
            for c in lm.range(0, 4):
                lm.tmem_load(o_r[:, 32 * c:32 * c + 32], tmem_o[:, 32 * c:32 * c + 32])
            lm.tmem_load_wait()                           # the fix (PR #182)
            lm.arrive(o_empty, iter=t)
            lm.binary(o_r, o_r, st_r[:, 1:2], op="div")
            lm.copy(smem_o[0], o_r)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(128 * (lm.block_idx(0) + t * lm.grid_dim(0)), 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
