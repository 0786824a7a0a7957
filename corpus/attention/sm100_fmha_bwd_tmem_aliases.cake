# CUTLASS's Blackwell FMHA backward (NVIDIA/cutlass examples/
# 77_blackwell_fmha/kernel/sm100_fmha_bwd_kernel_tma_warpspecialized.hpp,
# Sm100FmhaBwdKernelTmaWarpSpecialized): one key block of 128 rows per CTA,
# head dim 64, query blocks of 128; kWarpAssignment 0x12'3333'3333'4444:
# warps 0-3 reduce dQ, 4-11 compute, 12 MMA, 13 load.  Ten pipelines
# (named Pipeline<Producer><Consumer><Resource>) and two TMEM aliases:
# "in tmem, S & P overlap and dP and dQ overlap".
#  * load warp: query block 0 first (the kernel's prologue), K riding on Q_0's barrier and V on dO_0's (load_mma_q has 2
#    stages, load_mma_do 1); LSE and sum(O dO) rows go by cp.async with
#    cpasync_barrier_arrive into one-slot PipelineAsync rings (written as
#    cp_async_wait(0) and an arrive).
#  * MMA warp, skewed by one query block: S_i = K Q_i^T; then dQ_{i-1} =
#    dS_{i-1} K after re-acquiring dP (dQ's columns are dP's), dK +=
#    dS_{i-1}^T Q_{i-1}, release Q_{i-1} and dS by tcgen05.commit; acquire
#    dQ (the reduce warps read dQ_{i-1}: dP_i overwrites it); dP_i = V dO_i^T;
#    dV += P_i dO_i with P from TMEM (the TS form), release P and dO_i.  After
#    the loop: dV ready (commit), dK's last product, dK ready, dQ_{n-1}.
#  * compute warps: S_i out of TMEM, P = exp2(S * scale - LSE) back over S's
#    columns (tcgen05.st, fence_view_async_tmem_store), P ready, release S
#    and LSE; dP_i out of TMEM, release dP, dS = P (dP - sum O dO) to smem,
#    fence_view_async_shared, dS ready, release sum O dO.  Epilogue: dV and
#    dK out of TMEM (PipelineMmaComputeDKDV, 2 stages), st.global.
#  * reduce warps: dQ_i out of TMEM, release it, then two 32-column chunks
#    through a 2-slot smem ring, each a TMA reduce-add (a TMA store here)
#    after producer_acquire (tma_store_wait<1>).
# One reordering: after the loop CUTLASS commits dQ_{n-1} (waited by the
# reduce warps) and THEN releases Q and dS by two more tcgen05.commits
# that no warp waits for (no producer_tail in load()); their mbarrier
# arrivals are async writes to shared memory that nothing observes before
# exit, which the exit rule reports (sync.async-at-exit, docs/corpus.md
# "Semantics" point 9).  Here the two releases come before dQ's commit:
# all three track the same MMAs, and the waited one, last, observes them.
# Modelled with f16 elements, S accumulating in f16 so that S and P are one
# TMEM region (a second lm.tmem over the same columns is tmem.overlap);
# dQ is a column slice of the dP region.  The transposed operands (K^T, Q^T,
# dO^T, dS^T) are union members over the tiles they transpose.
# Mutant: bugs/sync.race/sm100_fmha_bwd_dp_over_dq_before_reduce_read.cake.
# expect: pass
# lower: unsupported (tcgen05.mma with A from TMEM)
@cake.schedule(target="sm_100a")
def cutlass_sm100_fmha_bwd(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, dO: LM.tma2d,
                           LSE: LM.gmem, SumOdO: LM.gmem, dQacc: LM.tma2d,
                           dK: LM.gmem, dV: LM.gmem, n: LM.i32):
    lm.assume(n > 0)
    pool     = lm.smem(148480)
    smem_k   = pool.view(offset=0,      shape=(128, 64),  dtype=lm.f16, stages=1, swizzle="128B")
    smem_kt  = pool.view(offset=0,      shape=(64, 128),  dtype=lm.f16, stages=1, union=smem_k)
    smem_v   = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.f16, stages=1, swizzle="128B")
    smem_q   = pool.view(offset=32768,  shape=(128, 64),  dtype=lm.f16, stages=2, swizzle="128B")
    smem_qt  = pool.view(offset=32768,  shape=(64, 128),  dtype=lm.f16, stages=2, union=smem_q)
    smem_do  = pool.view(offset=65536,  shape=(128, 64),  dtype=lm.f16, stages=1, swizzle="128B")
    smem_dot = pool.view(offset=65536,  shape=(64, 128),  dtype=lm.f16, stages=1, union=smem_do)
    smem_ds  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.f16, stages=1)
    smem_dst = pool.view(offset=81920,  shape=(128, 128), dtype=lm.f16, stages=1, union=smem_ds)
    smem_dq  = pool.view(offset=114688, shape=(128, 32),  dtype=lm.f32, stages=2, swizzle="128B")
    smem_lse = pool.view(offset=147456, shape=(128, 1),   dtype=lm.f32, stages=1)
    smem_odo = pool.view(offset=147968, shape=(128, 1),   dtype=lm.f32, stages=1)
    tm_dk    = lm.tmem(cols=0,   width=64,  shape=(128, 64),  dtype=lm.f32)
    tm_dv    = lm.tmem(cols=64,  width=64,  shape=(128, 64),  dtype=lm.f32)
    tm_dpdq  = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    tm_sp    = lm.tmem(cols=256, width=64,  shape=(128, 128), dtype=lm.f16)
    s_r      = lm.regs(shape=(128, 128), dtype=lm.f16)
    dp_r     = lm.regs(shape=(128, 128), dtype=lm.f32)
    lse_r    = lm.regs(shape=(128, 1), dtype=lm.f32)
    odo_r    = lm.regs(shape=(128, 1), dtype=lm.f32)
    dkv_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    dq_r     = lm.regs(shape=(128, 64), dtype=lm.f32)

    reduce  = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11])
    mma     = lm.role(warps=[12])
    load    = lm.role(warps=[13])

    qp        = lm.pipeline(stages=2)
    q_full    = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=qp)
    q_empty   = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=qp)
    do_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    do_empty  = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    lse_full  = lm.barrier(count=1, prod=[load], cons=[compute], init_count=1)
    lse_empty = lm.barrier(count=1, prod=[compute], cons=[load], init_count=1)
    odo_full  = lm.barrier(count=1, prod=[load], cons=[compute], init_count=1)
    odo_empty = lm.barrier(count=1, prod=[compute], cons=[load], init_count=1)
    s_full    = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    s_empty   = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    dp_full   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dp_empty  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    dq_full   = lm.barrier(count=1, prod=[mma], cons=[reduce], init_count=1)
    dq_empty  = lm.barrier(count=1, prod=[reduce], cons=[mma], init_count=1)
    p_full    = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    p_empty   = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    ds_full   = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    kvp       = lm.pipeline(stages=2)
    dkdv_full = lm.barrier(prod=[mma], cons=[compute], init_count=1, pipeline=kvp)
    dkdv_empty = lm.barrier(prod=[compute], cons=[mma], init_count=1, pipeline=kvp)

    k0 = lm.block_idx(0) * 128

    with load:
        # query block 0 with K (on Q_0's barrier) and V (on dO_0's)
        smem_k.tma_load(K, coords=(k0, 0), iter=0, barrier=q_full)
        smem_q.tma_load(Q, coords=(0, 0), iter=0, barrier=q_full)
        smem_lse.cp_async(LSE, coords=(0, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.arrive(lse_full, iter=0)
        smem_v.tma_load(V, coords=(k0, 0), iter=0, barrier=do_full)
        smem_do.tma_load(dO, coords=(0, 0), iter=0, barrier=do_full)
        smem_odo.cp_async(SumOdO, coords=(0, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.arrive(odo_full, iter=0)
        for i in lm.range(1, n):
            lm.wait(q_empty, iter=i - 2)
            smem_q.tma_load(Q, coords=(i * 128, 0), iter=i, barrier=q_full)
            lm.wait(lse_empty, iter=i - 1)
            smem_lse.cp_async(LSE, coords=(i * 128, 0), stage=0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.arrive(lse_full, iter=i)
            lm.wait(do_empty, iter=i - 1)
            smem_do.tma_load(dO, coords=(i * 128, 0), iter=i, barrier=do_full)
            lm.wait(odo_empty, iter=i - 1)
            smem_odo.cp_async(SumOdO, coords=(i * 128, 0), stage=0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.arrive(odo_full, iter=i)

    with mma:
        # query block 0: S_0, dP_0, dV
        lm.wait(q_full, iter=0)
        lm.mma(tm_sp, smem_k[0], smem_q[0], init=True)
        lm.mma_commit(barrier=s_full, iter=0)
        lm.wait(do_full, iter=0)
        lm.mma(tm_dpdq, smem_v[0], smem_do[0], init=True)
        lm.mma_commit(barrier=dp_full, iter=0)
        lm.wait(p_full, iter=0)
        lm.mma(tm_dv, tm_sp, smem_dot[0], init=True)
        lm.mma_commit(barrier=p_empty, iter=0)
        lm.mma_commit(barrier=do_empty, iter=0)
        for i in lm.range(1, n):
            lm.wait(q_full, iter=i)
            lm.wait(s_empty, iter=i - 1)
            lm.mma(tm_sp, smem_k[0], smem_q[i], init=True)
            lm.mma_commit(barrier=s_full, iter=i)
            lm.wait(ds_full, iter=i - 1)
            lm.wait(dp_empty, iter=i - 1)               # dQ's columns are dP's
            lm.mma(tm_dpdq[:, 0:64], smem_ds[0], smem_kt[0], init=True)
            lm.mma_commit(barrier=dq_full, iter=i - 1)
            lm.mma(tm_dk, smem_dst[0], smem_qt[i - 1], init=(i == 1))
            lm.mma_commit(barrier=q_empty, iter=i - 1)
            lm.mma_commit(barrier=ds_empty, iter=i - 1)
            lm.wait(dq_empty, iter=i - 1)               # dP's columns are dQ's
            lm.wait(do_full, iter=i)
            lm.mma(tm_dpdq, smem_v[0], smem_do[0], init=True)
            lm.mma_commit(barrier=dp_full, iter=i)
            lm.wait(p_full, iter=i)
            lm.mma(tm_dv, tm_sp, smem_dot[0], init=False)
            lm.mma_commit(barrier=p_empty, iter=i)
            lm.mma_commit(barrier=do_empty, iter=i)
        lm.mma_commit(barrier=dkdv_full, iter=0)        # dV is ready
        lm.wait(ds_full, iter=n - 1)
        lm.mma(tm_dk, smem_dst[0], smem_qt[n - 1], init=(n == 1))
        lm.mma_commit(barrier=dkdv_full, iter=1)        # dK is ready
        lm.mma(tm_dpdq[:, 0:64], smem_ds[0], smem_kt[0], init=True)
        # the releases before dQ's commit (CUTLASS commits dQ first): see above
        lm.mma_commit(barrier=q_empty, iter=n - 1)
        lm.mma_commit(barrier=ds_empty, iter=n - 1)
        lm.mma_commit(barrier=dq_full, iter=n - 1)

    with compute:
        for i in lm.range(0, n):
            lm.wait(s_full, iter=i)
            lm.wait(p_empty, iter=i - 1)
            lm.wait(lse_full, iter=i)
            lm.tmem_load(s_r, tm_sp)
            lm.tmem_load_wait()
            lm.copy(lse_r, smem_lse[0])
            lm.binary(s_r, s_r, 0.18033688, op="mul")
            lm.binary(s_r, s_r, lse_r, op="sub")
            lm.unary(s_r, s_r, op="exp2")
            lm.tmem_store(tm_sp, s_r)                   # P over S
            lm.tmem_store_wait()
            lm.arrive(p_full, iter=i)
            lm.arrive(s_empty, iter=i)
            lm.arrive(lse_empty, iter=i)
            lm.wait(odo_full, iter=i)
            lm.wait(dp_full, iter=i)
            lm.wait(ds_empty, iter=i - 1)
            lm.tmem_load(dp_r, tm_dpdq)
            lm.tmem_load_wait()
            lm.copy(odo_r, smem_odo[0])
            lm.binary(dp_r, dp_r, odo_r, op="add")
            lm.binary(dp_r, dp_r, s_r, op="mul")
            lm.arrive(dp_empty, iter=i)
            lm.copy(smem_ds[0], dp_r)
            lm.fence_proxy()
            lm.arrive(ds_full, iter=i)
            lm.arrive(odo_empty, iter=i)
        # epilogue: dV, then dK, in 32-column halves
        lm.wait(dkdv_full, iter=0)
        for h in lm.range(0, 2):
            lm.tmem_load(dkv_r, tm_dv[:, 32 * h:32 * h + 32])
            lm.tmem_load_wait()
            lm.copy(dV, dkv_r, coords=(k0, 32 * h))
        lm.arrive(dkdv_empty, iter=0)
        lm.wait(dkdv_full, iter=1)
        for h in lm.range(0, 2):
            lm.tmem_load(dkv_r, tm_dk[:, 32 * h:32 * h + 32])
            lm.tmem_load_wait()
            lm.binary(dkv_r, dkv_r, 0.125, op="mul")
            lm.copy(dK, dkv_r, coords=(k0, 32 * h))
        lm.arrive(dkdv_empty, iter=1)

    with reduce:
        for i in lm.range(0, n):
            lm.wait(dq_full, iter=i)
            lm.tmem_load(dq_r, tm_dpdq[:, 0:64])
            lm.tmem_load_wait()
            lm.arrive(dq_empty, iter=i)
            for c in lm.range(0, 2):
                lm.tma_store_wait(pending=1)
                lm.copy(smem_dq[2 * i + c], dq_r[:, 32 * c:32 * c + 32])
                lm.fence_proxy()
                smem_dq.tma_store(dQacc, coords=(i * 128, 32 * c), iter=2 * i + c)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
