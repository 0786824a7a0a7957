# BUG (sync.race), a mutant of gemm/sm100_clc_scheduler_four_roles.cake
# (CUTLASS's sm100 persistent GEMM under the CLC tile scheduler,
# PipelineCLCFetchAsync): the epilogue releases the CLC response slot
# (clc_pipeline.consumer_release) before it has read the response - an
# early release.  Once the other three roles have released too, the
# scheduler's next-lap query (an async-proxy write of the same slot) can
# land while the epilogue still reads it.
# Fix: gemm/sm100_clc_scheduler_four_roles.cake.
# expect: sync.race
# may-also: data.stale-read proxy.missing-fence
@cake.schedule(target="sm_100a")
def gemm_sm100_clc_release_before_read(lm, Clc: LM.tma2d, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d,
                              K: LM.i32, n_tiles: LM.i32):
    lm.assume(K > 0)
    lm.assume(n_tiles > 0)
    pool      = lm.smem(132096)
    smem_a    = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b    = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_d    = pool.view(offset=98304,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    resp      = pool.view(offset=131072, shape=(1, 32),   dtype=lm.i32,  stages=2)
    tmem_acc0 = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_acc1 = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    acc_q     = lm.regs(shape=(128, 64), dtype=lm.f32)
    info      = lm.regs(shape=(1, 32), dtype=lm.i32)

    mma   = lm.role(warps=[0])
    sched = lm.role(warps=[1])
    load  = lm.role(warps=[2])
    epi   = lm.role(warps=[4, 5, 6, 7])

    clcp      = lm.pipeline(stages=2)
    clc_full  = lm.barrier(prod=[sched], cons=[sched, load, mma, epi], init_count=1, pipeline=clcp)
    clc_empty = lm.barrier(prod=[sched, load, mma, epi], cons=[sched], init_count=4, pipeline=clcp)
    pipe      = lm.pipeline(stages=3)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    accp      = lm.pipeline(stages=2)
    acc_full  = lm.barrier(prod=[mma], cons=[epi], init_count=1, pipeline=accp)
    acc_empty = lm.barrier(prod=[epi], cons=[mma], init_count=1, pipeline=accp)

    k_tiles = lm.cdiv(K, 64)

    with sched:
        for t in lm.range(0, n_tiles):
            lm.wait(clc_empty, iter=t - 2)
            lm.expect_tx(clc_full, 128, iter=t)
            resp.tma_load(Clc, coords=(lm.block_idx(0), 32 * t), iter=t, barrier=clc_full)  # expect-error: sync.race
            lm.wait(clc_full, iter=t)
            lm.copy(info, resp[t])
            lm.fence_proxy()
            lm.arrive(clc_empty, iter=t)

    with load:
        for t in lm.range(0, n_tiles):
            m_blk = (lm.block_idx(0) + t) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)
            lm.wait(clc_full, iter=t)
            lm.copy(info, resp[t])
            lm.fence_proxy()
            lm.arrive(clc_empty, iter=t)

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(acc_empty, iter=t - 2)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                if t % 2 == 0:
                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))
                else:
                    lm.mma(tmem_acc1, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)
            lm.wait(clc_full, iter=t)
            lm.copy(info, resp[t])
            lm.fence_proxy()
            lm.arrive(clc_empty, iter=t)

    with epi:
        for t in lm.range(0, n_tiles):
            m_blk = (lm.block_idx(0) + t) * 128
            lm.wait(acc_full, iter=t)
            for h in lm.range(0, 2):
                if t % 2 == 0:
                    lm.tmem_load(acc_q, tmem_acc0[0:128, h * 64:h * 64 + 64])
                else:
                    lm.tmem_load(acc_q, tmem_acc1[0:128, h * 64:h * 64 + 64])
                lm.tmem_load_wait()
                if h == 1:
                    lm.arrive(acc_empty, iter=t)
                lm.tma_store_wait(pending=1)
                lm.copy(smem_d[h], acc_q)
                lm.fence_proxy()
                smem_d.tma_store(D, coords=(m_blk, h * 64), stage=h)
                lm.tma_store_commit()
            lm.wait(clc_full, iter=t)
            lm.arrive(clc_empty, iter=t)
            lm.copy(info, resp[t])  # expect-error: sync.race
            lm.fence_proxy()
        lm.tma_store_wait(pending=0)
