# FIXED form of fa4_bwd_sm100_gqa_dkv_accum_staging_sized_fp16_over_sds.cake
# (Dao-AILab/flash-attention PR #2035, third fix): the GQA dK / dV staging
# buffer is reserved with the fp32 accumulator type, so sdS starts after
# its full 16384 bytes and the epilogue's staging writes no longer land on
# the dS the tail dQ MMA still reads.
# expect: pass
@cake.schedule(target="sm_100a")
def fa4_bwd_sm100_gqa_dkv_accum_staging_sized_fp32(lm, Q: LM.tma2d, K: LM.tma2d, DVacc: LM.tma2d, DQ: LM.gmem, steps: LM.i32):
    lm.assume(steps >= 1)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")   # Q / dO ring
    smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, swizzle="128B")             # K of the tile
    sdKV    = pool.view(offset=24576, shape=(128, 32), dtype=lm.f32)                               # fp32 dV partials: 16384 B
    sdS     = pool.view(offset=40960, shape=(128, 64), dtype=lm.bf16, swizzle="128B")             # the fix: 24576 + 16384 (fp32 size)
    tmem_dv = lm.tmem(cols=0,  width=32, shape=(128, 32), dtype=lm.f32)
    tmem_dq = lm.tmem(cols=64, width=64, shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dv_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    dq_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    reduce  = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    q_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    k_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dv_done  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dq_full  = lm.barrier(count=1, prod=[mma], cons=[reduce], init_count=1)
    dq_empty = lm.barrier(count=1, prod=[reduce], cons=[mma], init_count=1)

    with load:
        smem_k.tma_load(K, coords=(0, 64 * lm.block_idx(0)), stage=0, barrier=k_full)
        for j in lm.range(0, steps):
            lm.wait(q_empty, iter=j - 2)
            smem_q.tma_load(Q, coords=(0, 64 * j), iter=j, barrier=q_full)

    with mma:
        lm.wait(k_full, stage=0)
        for j in lm.range(0, steps):
            lm.wait(q_full, iter=j)
            lm.wait(ds_full, iter=j)
            lm.mma(tmem_dv, sdS[j], smem_q[j][0:32, :], init=(j == 0))          # dV += P^T dO
            if j == steps - 1:
                lm.mma_commit(barrier=dv_done, stage=0)   # dV complete: the epilogue runs under the tail
            lm.wait(dq_empty, iter=j - 1)
            lm.mma(tmem_dq, sdS[j], smem_k[0], init=True)
            lm.mma_commit(barrier=q_empty, iter=j)
            lm.mma_commit(barrier=ds_empty, iter=j)
            lm.mma_commit(barrier=dq_full, iter=j)

    with compute:
        for j in lm.range(0, steps):
            lm.fill(ds_r, 0.5)                            # dS = P * (dP - dPsum)
            lm.wait(ds_empty, iter=j - 1)
            lm.copy(sdS[j], ds_r)
            lm.fence_proxy()
            lm.arrive(ds_full, iter=j)
        lm.wait(dv_done, stage=0)
        lm.tmem_load(dv_r, tmem_dv)
        lm.tmem_load_wait()
        lm.copy(sdKV[0], dv_r)                           
        lm.fence_proxy()
        sdKV.tma_store(DVacc, coords=(128 * lm.block_idx(0), 0), stage=0)         # reduce-add into dVaccum
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with reduce:
        for j in lm.range(0, steps):
            lm.wait(dq_full, iter=j)
            lm.tmem_load(dq_r, tmem_dq)
            lm.tmem_load_wait()
            lm.arrive(dq_empty, iter=j)
            lm.copy(DQ, dq_r, coords=(128 * j, 0))
