# FIXED form of fa4_hd256_bwd_dq_zero_len_k_mma_waits_unloaded_k.cake
# (Dao-AILab/flash-attention PR #2568): the work tile guard also checks
# that the KV trip count is non-zero, so for an empty K the load, MMA and
# compute warps skip the tile alike (the MMA warp no longer peels a first
# block nobody loads), and the compute warps write zeros as the tile's dQ.
# expect: pass
@cake.schedule(target="sm_100a")
def fa4_hd256_bwd_dq_zero_len_k_mma_waits_unloaded_k_fixed(lm, Q: LM.tma3d, dO: LM.tma3d, K: LM.tma3d,
                                                           V: LM.tma3d, Kt: LM.tma3d, dQ: LM.tma3d,
                                                           n_steps: LM.i32):
    lm.assume(n_steps >= 0)
    pool    = lm.smem(180224)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_do = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=32768,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=65536,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_kt = pool.view(offset=98304,  shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_ds = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_dq = pool.view(offset=163840, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_dp = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    tmem_dq = lm.tmem(cols=256, width=64,  shape=(128, 64),  dtype=lm.f32)
    s  = lm.regs(shape=(128, 128), dtype=lm.f32)
    dp = lm.regs(shape=(128, 128), dtype=lm.f32)
    dq = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])

    two      = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    do_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    k_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    v_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    kt_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    kt_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    s_full   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dp_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dq_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)

    q0    = lm.block_idx(0) * 128
    head  = lm.block_idx(1)

    with load:
        if n_steps > 0:                   # the work tile guard checks the trip count too
            smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
            smem_do.tma_load(dO, coords=(head, q0, 0), stage=0, barrier=do_full)
            for i in lm.range(0, n_steps):
                lm.wait(k_empty, iter=i - 2)
                smem_k.tma_load(K, coords=(head, i * 128, 0), iter=i, barrier=k_full)
                lm.wait(v_empty, iter=i - 2)
                smem_v.tma_load(V, coords=(head, i * 128, 0), iter=i, barrier=v_full)
                lm.wait(kt_empty, iter=i - 2)
                smem_kt.tma_load(Kt, coords=(head, 0, i * 128), iter=i, barrier=kt_full)

    with mma:
        if n_steps > 0:                   # the work tile guard checks the trip count too
            lm.wait(q_full, stage=0)
            lm.wait(do_full, stage=0)
            for j in lm.range(0, n_steps):
                lm.wait(k_full, iter=j)
                lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)            # QK
                lm.mma_commit(barrier=k_empty, iter=j)
                lm.mma_commit(barrier=s_full, iter=j)
                lm.wait(v_full, iter=j)
                lm.mma(tmem_dp, smem_do[0], smem_v[j], init=True)          # dOV
                lm.mma_commit(barrier=v_empty, iter=j)
                lm.mma_commit(barrier=dp_full, iter=j)
                lm.wait(ds_full, iter=j)
                lm.wait(kt_full, iter=j)
                lm.mma(tmem_dq, smem_ds[0], smem_kt[j], init=(j == 0))     # dSKT
                lm.mma_commit(barrier=kt_empty, iter=j)
                lm.mma_commit(barrier=ds_empty, iter=j)
            lm.mma_commit(barrier=dq_full, stage=0)

    with compute:
        if n_steps > 0:
            for j in lm.range(0, n_steps):
                lm.wait(s_full, iter=j)
                lm.wait(dp_full, iter=j)
                lm.tmem_load(s, tmem_s)
                lm.tmem_load(dp, tmem_dp)
                lm.tmem_load_wait()
                lm.unary(s, s, op="exp2")                                  # P
                lm.binary(s, s, dp, op="mul")                              # dS = P * (dP - D)
                if j > 0:
                    lm.wait(ds_empty, iter=j - 1)                          # dSKT j-1 has read smem_ds
                lm.copy(smem_ds[0], s)
                lm.fence_proxy()
                lm.arrive(ds_full, iter=j)
            lm.wait(dq_full, stage=0)
            lm.tmem_load(dq, tmem_dq)
            lm.tmem_load_wait()
            lm.copy(smem_dq[0], dq)
            lm.fence_proxy()
            smem_dq.tma_store(dQ, coords=(head, q0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
        else:                               # write zero as the output
            lm.fill(dq, 0.0)
            lm.copy(smem_dq[0], dq)
            lm.fence_proxy()
            smem_dq.tma_store(dQ, coords=(head, q0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
