# BUG (sync.race): NVIDIA/cudnn-frontend PR #395 ("Fix two latent
# synchronization bugs in the SM100 DSA backward kernel", merged
# 2026-07-15), bug 1.  python/cudnn/.../dsa_bwd_sm100.py
# (FlashAttentionDSABackwardSm100): the compute warps hand P (and dS) to
# the MMA warp through a staged shared-memory ring (compute_mma_P_stage
# slots, an mbarrier pair per slot), but the store-side partitions
# tRS_sP / tRS_sdS are sliced at the producer's initial index once, before
# the tile loop, so every stsm writes slot 0 while producer_state.advance()
# cycles the barriers and the MMA consumer reads slots 0..N-1 (and the
# staged store layouts were also built with load_mma_K_stage).  "Dormant
# only because every compute->MMA stage count is 1 today; deepening either
# pipeline yields silent NaNs."  The fix slices the store partition at
# producer_state.index inside the loop.
# Modelled at 2 P stages (the depth the code anticipates; with 1 stage the
# two forms are the same schedule): one KV block per CTA; the load warp
# brings K once and Q_j / dO_j^T per query block j through a 2-slot ring;
# the MMA warp computes S^T_j = K Q_j^T into TMEM, waits for P^T_j and
# accumulates dV += P^T_j dO_j; the compute warpgroup reads S^T_j, forms
# P^T_j (exp2) and stores it into the P ring after producer_acquire
# (p_empty), fences and arrives p_full.  Left out: dS, dP, dK, dQ, LSE,
# the sparse index gather, the second bug (TMEM dealloc at the tail).
# Fix: cudnn_fe_dsa_bwd_staged_p_store_slot0_fixed.cake.
# expect: sync.race
# may-also: data.stale-read data.uninitialized
@cake.schedule(target="sm_100a")
def cudnn_fe_dsa_bwd_staged_p_store_slot0(lm, Q: LM.tma3d, K: LM.tma3d, dOt: LM.tma3d, dV: LM.gmem,
                                          seqlen_q: LM.i32):
    lm.assume(seqlen_q > 0)
    pool    = lm.smem(147456)
    smem_k  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_q  = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_do = pool.view(offset=49152,  shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.bf16, stages=2)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_dv = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s  = lm.regs(shape=(128, 128), dtype=lm.f32)
    dv = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])

    qring   = lm.pipeline(stages=2)
    pring   = lm.pipeline(stages=2)                 # compute_mma_P_stage = 2
    k_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=qring)
    q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=qring)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    s_empty = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    p_full  = lm.barrier(prod=[compute], cons=[mma], init_count=1, pipeline=pring)
    p_empty = lm.barrier(prod=[mma], cons=[compute], init_count=1, pipeline=pring)
    dv_full = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)

    n_q  = lm.cdiv(seqlen_q, 128)
    kv0  = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with load:
        smem_k.tma_load(K, coords=(head, kv0, 0), stage=0, barrier=k_full)
        for j in lm.range(0, n_q):
            lm.wait(q_empty, iter=j - 2)
            smem_q.tma_load(Q, coords=(head, j * 128, 0), iter=j, barrier=q_full)
            smem_do.tma_load(dOt, coords=(head, 0, j * 128), iter=j, barrier=q_full)

    with mma:
        lm.wait(k_full, stage=0)
        lm.wait(q_full, iter=0)
        lm.mma(tmem_s, smem_k[0], smem_q[0], init=True)              # S^T_0 = K Q_0^T
        lm.mma_commit(barrier=s_full, stage=0)
        for j in lm.range(0, n_q):
            lm.wait(p_full, iter=j)                                   # consumer_wait: P slot j % 2
            if j + 1 < n_q:                                           # S^T_{j+1} overlaps dV_j
                lm.wait(q_full, iter=j + 1)
                lm.wait(s_empty, iter=j)
                lm.mma(tmem_s, smem_k[0], smem_q[j + 1], init=True)
                lm.mma_commit(barrier=s_full, stage=0)
            # dV += P^T_j dO_j
            lm.mma(tmem_dv, smem_p[j], smem_do[j], init=(j == 0))   # expect-error: sync.race
            lm.mma_commit(barrier=p_empty, iter=j)                    # consumer_release
            lm.mma_commit(barrier=q_empty, iter=j)
        lm.mma_commit(barrier=dv_full, stage=0)

    with compute:
        for j in lm.range(0, n_q):
            lm.wait(s_full, stage=0)
            lm.copy(s, tmem_s)
            lm.arrive(s_empty, iter=j)
            lm.unary(s, s, op="exp2")                                 # P^T_j
            lm.wait(p_empty, iter=j - 2)                              # producer_acquire: slot j % 2
            # BUG: tRS_sP sliced at the initial producer index: stsm always into slot 0
            lm.copy(smem_p[0], s)                                     # expect-error: sync.race
            lm.fence_proxy()
            lm.arrive(p_full, iter=j)
        lm.wait(dv_full, stage=0)
        lm.copy(dv, tmem_dv)
        lm.copy(dV, dv, coords=(head, kv0, 0))
