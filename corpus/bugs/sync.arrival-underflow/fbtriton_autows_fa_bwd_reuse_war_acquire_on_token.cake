# BUG (sync.arrival-underflow): facebookexperimental/triton PR #1851 ("[AutoWS][FA]
# Fix FA-bwd 3-group TMEM reuse: deadlock + dk/dq ordering"), the deadlock
# half (WSCodePartition.cpp).  The `_BWD_DOT_ATTRS_TMEM` config shares one
# TMEM buffer across {dpT, dq, dsT}; before the dq MMA rewrites it, the
# code partitioner emits a reuse-group write-after-read `producer_acquire`
# for the dq writer.  It "was emitted on a token that the dsT_0 gen5
# consumer (dk MMA) never releases -- gen5 consumers signal completion on
# their consumerBarrier, not the token": the wait never completes and the
# kernel hangs (the phase the acquire waits for gets no arrival: cake reports
# the hang as sync.arrival-underflow at the wait).  Fix: "Route the reuse WAR to the consumerBarrier instead."
# Modelled on the schedule of
# data.discarded-product/fbtriton_autows_fa_bwd_dq_clobbers_dst_before_dk_fixed.cake
# (the same PR's other half, dk issued before dq), with the dk MMA's
# consumerBarrier (`dk_done`, a tcgen05.commit) and the channel's token
# (`dst_tok`, released by an arrive that no op issues); the acquire sits in
# the MMA warp, which issues both MMAs.
# Fix: fbtriton_autows_fa_bwd_reuse_war_acquire_on_token_fixed.cake.
# expect: sync.arrival-underflow
@cake.schedule(target="sm_100a")
def fbtriton_autows_fa_bwd_reuse_war_acquire_on_token(lm, QT: LM.tma2d, dO: LM.tma2d, V: LM.tma2d, KT: LM.tma2d, DQ: LM.gmem, n_m: LM.i32):
    lm.assume(n_m >= 1)
    pool    = lm.smem(163840)
    smem_v  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.f16)
    smem_kt = pool.view(offset=16384,  shape=(64, 128),  dtype=lm.f16)
    smem_do = pool.view(offset=32768,  shape=(128, 64),  dtype=lm.f16, stages=2, swizzle="128B")
    smem_qt = pool.view(offset=65536,  shape=(64, 128),  dtype=lm.f16, stages=2)
    smem_ds = pool.view(offset=98304,  shape=(128, 128), dtype=lm.f16)
    dk      = lm.tmem(cols=0,   width=64, shape=(128, 64),  dtype=lm.f32)
    buf5    = lm.tmem(cols=128, width=64, shape=(128, 128), dtype=lm.f16)
    dp_r    = lm.regs(shape=(128, 128), dtype=lm.f16)
    dq_r    = lm.regs(shape=(128, 64), dtype=lm.f16)
    dk_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    reduce  = lm.role(warps=[4, 5, 6, 7])
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    kv_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    dp_full   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    ds_full   = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    dq_full   = lm.barrier(count=1, prod=[mma], cons=[reduce], init_count=1)
    buf_empty = lm.barrier(count=1, prod=[reduce], cons=[mma], init_count=1)
    dk_full   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dk_done   = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)      # the dk MMA's consumerBarrier
    dst_tok   = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)      # the dsT channel's token

    n0 = lm.block_idx(0) * 128

    with load:
        smem_v.tma_load(V, coords=(n0, 0), stage=0, barrier=kv_full)
        smem_kt.tma_load(KT, coords=(0, n0), stage=0, barrier=kv_full)
        for m in lm.range(0, n_m):
            lm.wait(empty, iter=m - 2)
            smem_do.tma_load(dO, coords=(m * 128, 0), iter=m, barrier=full)
            smem_qt.tma_load(QT, coords=(0, m * 128), iter=m, barrier=full)

    with mma:
        lm.wait(kv_full, stage=0)
        for m in lm.range(0, n_m):
            lm.wait(full, iter=m)
            lm.wait(buf_empty, iter=m - 1)
            lm.mma(buf5, smem_v[0], smem_do[m], init=True)              # dpT = V dO^T
            lm.mma_commit(barrier=dp_full, iter=m)
            lm.wait(ds_full, iter=m)
            lm.mma(dk, buf5, smem_qt[m], init=(m == 0))                  # dk += dsT Q (first)
            lm.mma_commit(barrier=dk_done, iter=m)                       # gen5 consumer: signals its barrier
            lm.wait(dst_tok, iter=m)                                     # reuse WAR acquire: nobody releases it  # expect-error: sync.arrival-underflow
            lm.mma(buf5[:, 0:64], smem_ds[0], smem_kt[0], init=True)     # dq = dS K, over dsT
            lm.mma_commit(barrier=empty, iter=m)
            lm.mma_commit(barrier=dq_full, iter=m)
        lm.mma_commit(barrier=dk_full, stage=0)

    with compute:
        for m in lm.range(0, n_m):
            lm.wait(dp_full, iter=m)
            lm.tmem_load(dp_r, buf5)
            lm.tmem_load_wait()
            lm.binary(dp_r, dp_r, 0.5, op="mul")                         # dsT = P^T (dpT - delta)
            lm.tmem_store(buf5, dp_r)                                    # dsT over dpT, for dk
            lm.tmem_store_wait()
            lm.copy(smem_ds[0], dp_r)                                    # dS for dq
            lm.fence_proxy()
            lm.arrive(ds_full, iter=m)
        lm.wait(dk_full, stage=0)
        lm.tmem_load(dk_r, dk)
        lm.tmem_load_wait()

    with reduce:
        for m in lm.range(0, n_m):
            lm.wait(dq_full, iter=m)
            lm.tmem_load(dq_r, buf5[:, 0:64])
            lm.tmem_load_wait()
            lm.arrive(buf_empty, iter=m)
            lm.copy(DQ, dq_r, coords=(m * 128, 0))
