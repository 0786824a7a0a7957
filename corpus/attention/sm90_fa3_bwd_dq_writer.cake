# FlashAttention-3 backward on Hopper (Dao-AILab/flash-attention,
# hopper/mainloop_bwd_sm90_tma_gmma_ws.hpp, dQacc_use_TMA, SdP_swapAB,
# Mma_dKV_is_RS, kStages_dS = 1; one key block of 128 rows per CTA, head
# dim 64, query blocks of 64 rows, two MMA warpgroups).
#  * producer warp (warp 0): K and V once (barrier_KV), then Q (+ LSE) and
#    dO (+ dPsum) per query block through 2-stage rings.
#  * MMA warpgroups (one role each: each has its own dQ named barriers):
#    warpgroup w owns key rows 64w.. of S^T = K Q^T, dP^T = V dO^T, dK and
#    dV, and head-dim columns 32w.. of dQ.  S^T and dP^T are issued back to
#    back, warpgroup_wait<1> retires S^T (softmax with the LSE row of the Q
#    slot), warpgroup_wait<0> dP^T (dS with the dPsum row of the dO slot).
#    dV += P^T dO and dK += dS^T Q take P^T / dS^T from registers (RS).
#    dS^T goes to the warpgroup's half of sdS; the PdS named barrier of both
#    warpgroups is synced (after a fence) before the write (the other
#    warpgroup's dQ wgmma of the previous block has been waited) and after
#    it (dQ = dS K reads both halves).  wait<1> after dQ retires dV ->
#    release dO; wait<1> after dK retires dQ -> dQ to sdQ_w; wait<0> ->
#    release Q (its slot's LSE row was read before the fences).
#  * dQ writer warp (warp 1): per query block, for each warpgroup bar.sync
#    dQFull_w, then the bulk reduce-add of sdQ_w into dQaccum (a TMA store
#    here) and a commit; then tma_store_wait<1> -> bar.arrive dQEmpty_0,
#    tma_store_wait<0> -> bar.arrive dQEmpty_1.  The MMA warpgroup:
#    bar.sync dQEmpty_w, write sdQ_w, fence, bar.arrive dQFull_w.  FA3
#    primes dQEmpty_w in mma_init with one warp of the MMA warpgroup (an
#    arrival in the writer's place); the IR arrives per instance, so here
#    the writer gives that first arrival itself.  The writer's last two
#    arrivals find no bar.sync (left half-full at exit, as in FA3).
#  * warps 2-3 idle, the producer warpgroup at setmaxnreg 24, the MMA
#    warpgroups at 240.
# lower: unsupported (setmaxnreg for roles that split warpgroup 0: the producer warp, the dQ writer warp and the idle warps)
# expect: pass
@cake.schedule(target="sm_90a")
def fa3_bwd_dq_writer(lm, Q: LM.tma3d, K: LM.tma3d, V: LM.tma3d, dO: LM.tma3d,
                      LSE: LM.tma2d, dPsum: LM.tma2d, dQaccum: LM.tma3d,
                      dK: LM.gmem, dV: LM.gmem, seqlen_q: LM.i32):
    lm.assume(seqlen_q > 0)
    pool     = lm.smem(99328)
    smem_q   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_qt  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_do  = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_dot = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_k   = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_kt  = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v   = pool.view(offset=49152, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_ds  = pool.view(offset=65536, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_dst = pool.view(offset=65536, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_dq  = pool.view(offset=81920, shape=(64, 32), dtype=lm.f32,  stages=2)
    smem_lse = pool.view(offset=98304, shape=(1, 64),  dtype=lm.f32,  stages=2)
    smem_dps = pool.view(offset=98816, shape=(1, 64),  dtype=lm.f32,  stages=2)

    s_acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    dp_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    p      = lm.regs(shape=(64, 64), dtype=lm.bf16)
    ds     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    dq_acc = lm.regs(shape=(64, 32), dtype=lm.f32)
    dk_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    dv_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    lse    = lm.regs(shape=(1, 64),  dtype=lm.f32)
    dps    = lm.regs(shape=(1, 64),  dtype=lm.f32)

    producer = lm.role(warps=[0], regs=24)
    writer   = lm.role(warps=[1], regs=24)
    idle     = lm.role(warps=[2, 3], regs=24)
    mma0     = lm.role(warps=[4, 5, 6, 7], regs=240)
    mma1     = lm.role(warps=[8, 9, 10, 11], regs=240)

    ring      = lm.pipeline(stages=2)
    kv_full   = lm.barrier(count=1, prod=[producer], cons=[mma0, mma1], init_count=1)
    q_full    = lm.barrier(prod=[producer], cons=[mma0, mma1], init_count=1, pipeline=ring)
    q_empty   = lm.barrier(prod=[mma0, mma1], cons=[producer], init_count=2, pipeline=ring)
    do_full   = lm.barrier(prod=[producer], cons=[mma0, mma1], init_count=1, pipeline=ring)
    do_empty  = lm.barrier(prod=[mma0, mma1], cons=[producer], init_count=2, pipeline=ring)
    pds       = lm.named_barrier(roles=[mma0, mma1])
    dq_full0  = lm.named_barrier(roles=[writer, mma0])
    dq_empty0 = lm.named_barrier(roles=[writer, mma0])
    dq_full1  = lm.named_barrier(roles=[writer, mma1])
    dq_empty1 = lm.named_barrier(roles=[writer, mma1])

    n_m  = lm.cdiv(seqlen_q, 64)
    n0g  = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with producer:
        smem_k[0].tma_load(K, coords=(head, n0g, 0), stage=0, barrier=kv_full)
        smem_k[1].tma_load(K, coords=(head, n0g + 64, 0), stage=0, barrier=kv_full)
        smem_v[0].tma_load(V, coords=(head, n0g, 0), stage=0, barrier=kv_full)
        smem_v[1].tma_load(V, coords=(head, n0g + 64, 0), stage=0, barrier=kv_full)
        for m in lm.range(0, n_m):
            lm.wait(q_empty, iter=m - 2)
            smem_q.tma_load(Q, coords=(head, m * 64, 0), iter=m, barrier=q_full)
            smem_lse.tma_load(LSE, coords=(head, m * 64), iter=m, barrier=q_full)
            lm.wait(do_empty, iter=m - 2)
            smem_do.tma_load(dO, coords=(head, m * 64, 0), iter=m, barrier=do_full)
            smem_dps.tma_load(dPsum, coords=(head, m * 64), iter=m, barrier=do_full)

    with idle:
        pass

    with writer:
        lm.bar_arrive(dq_empty0)
        lm.bar_arrive(dq_empty1)
        for m in lm.range(0, n_m):
            lm.sync(dq_full0)
            smem_dq.tma_store(dQaccum, coords=(head, m * 64, 0), stage=0)
            lm.tma_store_commit()
            lm.sync(dq_full1)
            smem_dq.tma_store(dQaccum, coords=(head, m * 64, 32), stage=1)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=1)
            lm.bar_arrive(dq_empty0)
            lm.tma_store_wait(pending=0)
            lm.bar_arrive(dq_empty1)

    with mma0:
        lm.fill(dk_acc, 0.0)
        lm.fill(dv_acc, 0.0)
        lm.wait(kv_full, stage=0)
        for m in lm.range(0, n_m):
            lm.wait(q_full, iter=m)
            lm.mma(s_acc, smem_k[0], smem_q[m], init=True)
            lm.mma_commit()
            lm.wait(do_full, iter=m)
            lm.mma(dp_acc, smem_v[0], smem_do[m], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.copy(lse, smem_lse[m])
            lm.binary(s_acc, s_acc, 0.18033688, op="mul")
            lm.binary(s_acc, s_acc, lse, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.copy(dps, smem_dps[m])
            lm.mma_wait(pending=0)
            lm.binary(dp_acc, dp_acc, dps, op="sub")
            lm.binary(dp_acc, dp_acc, s_acc, op="mul")
            lm.copy(p, s_acc)
            lm.copy(ds, dp_acc)
            lm.fence_proxy()
            lm.sync(pds)
            lm.copy(smem_dst[0], ds)
            lm.mma(dv_acc, p, smem_dot[m], init=False)
            lm.mma_commit()
            lm.fence_proxy()
            lm.sync(pds)
            lm.mma(dq_acc, smem_ds[0], smem_kt[0][0:32, :], init=True)
            lm.mma(dq_acc, smem_ds[1], smem_kt[1][0:32, :], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.arrive(do_empty, iter=m)
            lm.mma(dk_acc, ds, smem_qt[m], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.sync(dq_empty0)
            lm.copy(smem_dq[0], dq_acc)
            lm.fence_proxy()
            lm.bar_arrive(dq_full0)
            lm.mma_wait(pending=0)
            lm.arrive(q_empty, iter=m)
        lm.binary(dk_acc, dk_acc, 0.125, op="mul")
        lm.copy(dK, dk_acc, coords=(head * 4096 + n0g + 0, 0))
        lm.copy(dV, dv_acc, coords=(head * 4096 + n0g + 0, 0))

    with mma1:
        lm.fill(dk_acc, 0.0)
        lm.fill(dv_acc, 0.0)
        lm.wait(kv_full, stage=0)
        for m in lm.range(0, n_m):
            lm.wait(q_full, iter=m)
            lm.mma(s_acc, smem_k[1], smem_q[m], init=True)
            lm.mma_commit()
            lm.wait(do_full, iter=m)
            lm.mma(dp_acc, smem_v[1], smem_do[m], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.copy(lse, smem_lse[m])
            lm.binary(s_acc, s_acc, 0.18033688, op="mul")
            lm.binary(s_acc, s_acc, lse, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.copy(dps, smem_dps[m])
            lm.mma_wait(pending=0)
            lm.binary(dp_acc, dp_acc, dps, op="sub")
            lm.binary(dp_acc, dp_acc, s_acc, op="mul")
            lm.copy(p, s_acc)
            lm.copy(ds, dp_acc)
            lm.fence_proxy()
            lm.sync(pds)
            lm.copy(smem_dst[1], ds)
            lm.mma(dv_acc, p, smem_dot[m], init=False)
            lm.mma_commit()
            lm.fence_proxy()
            lm.sync(pds)
            lm.mma(dq_acc, smem_ds[0], smem_kt[0][32:64, :], init=True)
            lm.mma(dq_acc, smem_ds[1], smem_kt[1][32:64, :], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.arrive(do_empty, iter=m)
            lm.mma(dk_acc, ds, smem_qt[m], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.sync(dq_empty1)
            lm.copy(smem_dq[1], dq_acc)
            lm.fence_proxy()
            lm.bar_arrive(dq_full1)
            lm.mma_wait(pending=0)
            lm.arrive(q_empty, iter=m)
        lm.binary(dk_acc, dk_acc, 0.125, op="mul")
        lm.copy(dK, dk_acc, coords=(head * 4096 + n0g + 64, 0))
        lm.copy(dV, dv_acc, coords=(head * 4096 + n0g + 64, 0))
