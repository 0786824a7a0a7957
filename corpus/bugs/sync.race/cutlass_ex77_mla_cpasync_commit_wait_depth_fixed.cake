# FIXED form of cutlass_ex77_mla_cpasync_commit_wait_depth.cake (NVIDIA/cutlass
# PR #2502): the commit of stage c comes after the load of stage
# c + StagesPV - 2, so the wait before it must leave at most StagesPV - 2
# groups pending (`cp_async_wait<StagesPV - 2>()`), in the K loop and in the
# drain loop alike (there the empty group just committed is one of the
# StagesPV - 2 newest).  Everything else is unchanged.
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_ex77_mla_cpasync_commit_wait_depth_fixed(lm, Q: LM.gmem, KV: LM.gmem, O: LM.gmem, K: LM.i32):
    lm.assume(K >= 128)             # at least StagesPV - 2 loads (the kernel has IterationsQK >= 9)
    n = lm.cdiv(K, 64)
    pool     = lm.smem(81920)
    smem_q   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_kc  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc      = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r        = lm.regs(shape=(32, 32), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5, 6])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    m0 = lm.block_idx(0) * 128
    kv0 = lm.block_idx(1) * K

    with load:
        for i in lm.range(0, 4):                    # StagesPV empty groups
            lm.cp_async_commit()
        for g in lm.range(0, n):                    # load_stage
            lm.wait(empty, iter=g - 4)              # producer_acquire
            if g == 0:
                smem_q.cp_async(Q, coords=(m0, 0), stage=0)
            smem_kc.cp_async(KV, coords=(kv0 + 64 * g, 0), iter=g)
            lm.cp_async_commit()                    # cp_async_fence
            if g >= 2:                              # pipeline_offset == StagesPV - 1
                lm.cp_async_wait(pending=2)         # cp_async_wait<StagesPV - 2>: the committed stage landed
                lm.fence_proxy()
                lm.arrive(full, iter=g - 2)         # producer_commit
        for d in lm.range(0, 2):                    # while (pipeline_offset > 0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=2)
            lm.fence_proxy()
            lm.arrive(full, iter=n - 2 + d)
        lm.cp_async_wait(pending=0)

    with mma:
        for g in lm.range(0, n):
            lm.wait(full, iter=g)
            lm.mma(acc, smem_q[0], smem_kc[g], init=(g == 0))
            lm.mma_commit(barrier=empty, iter=g)
        lm.mma_commit(barrier=acc_full, iter=0)

    with epi:
        q = 32 * lm.instance()
        lm.wait(acc_full, iter=0)
        for s in lm.range(0, 4):
            lm.tmem_load(r, acc[q:q + 32, 32 * s:32 * s + 32])
            lm.tmem_load_wait()
            lm.copy(O, r, coords=(m0 + q, 32 * s))
