# BUG (sync.arrival-overflow), a mutant of ThunderKittens' H100 attention
# forward (corpus/attention/sm90_tk_attn_fwd_three_consumers.cake, which
# models HazyResearch/ThunderKittens kernels/attn/h100/h100.cu). The
# release barrier compute_done is initialised for 2 arrivals while THREE
# consumer warpgroups arrive on it (init_semaphore(compute_done[j],
# CONSUMER_WARPGROUPS, 0) with a hard-coded 2 after CONSUMER_WARPGROUPS
# went from 2 to 3): the phase completes when the two fastest warpgroups
# are done and the third arrival lands in the next phase, so the producer
# refills a K/V slot the slowest warpgroup still reads. Fixed form: the
# family file (init_count=3).
# may-also: sync.race sync.lost-phase sync.stale-phase data.stale-read
# expect: sync.arrival-overflow
@cake.schedule(target="sm_90a")
def tk_h100_attn_fwd(lm, Q: LM.tma2d, K: LM.tma2d, Vt: LM.tma2d, O: LM.tma2d,
                     seqlen: LM.i32):
    lm.assume(seqlen > 0)
    pool    = lm.smem(90112)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_k  = pool.view(offset=24576, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_vt = pool.view(offset=57344, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    s   = lm.regs(shape=(64, 64), dtype=lm.f32)
    mx  = lm.regs(shape=(64, 1),   dtype=lm.f32)
    p   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o   = lm.regs(shape=(64, 64), dtype=lm.f32)

    consumers = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=160)
    producer  = lm.role(warps=[12], regs=32)

    q_arrived    = lm.barrier(count=1, prod=[producer], cons=[consumers], init_count=1)
    kv           = lm.pipeline(stages=4)
    k_arrived    = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    v_arrived    = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    compute_done = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)  # expect-error: sync.arrival-overflow

    kv_iters = lm.cdiv(seqlen, 64)
    q0 = lm.block_idx(0) * 192

    with producer:
        lm.expect_tx(q_arrived, 24576, stage=0)
        for wg in lm.range(0, 3):
            smem_q[wg].tma_load(Q, coords=(q0 + 64 * wg, 0), stage=0, barrier=q_arrived)
        smem_k.tma_load(K, coords=(0, 0), iter=0, barrier=k_arrived)
        smem_vt.tma_load(Vt, coords=(0, 0), iter=0, barrier=v_arrived)
        for kv_idx in lm.range(0, kv_iters - 1):
            smem_k.tma_load(K, coords=(64 * (kv_idx + 1), 0), iter=kv_idx + 1, barrier=k_arrived)
            smem_vt.tma_load(Vt, coords=(0, 64 * (kv_idx + 1)), iter=kv_idx + 1, barrier=v_arrived)
            lm.wait(compute_done, iter=kv_idx)

    with consumers:
        wg = lm.instance()
        lm.wait(q_arrived, stage=0)
        lm.fill(o, 0.0)
        for kv_idx in lm.range(0, kv_iters):
            lm.wait(k_arrived, iter=kv_idx)
            lm.mma(s, smem_q[wg], smem_k[kv_idx], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.reduce(mx, s, op="max", axis=1)
            lm.unary(s, s, op="exp2")
            lm.copy(p, s)
            lm.wait(v_arrived, iter=kv_idx)
            lm.mma(o, p, smem_vt[kv_idx])
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(compute_done, iter=kv_idx)                              # expect-error: sync.arrival-overflow
        lm.copy(smem_q[wg], o)
        lm.fence_proxy()
        smem_q.tma_store(O, coords=(q0 + 64 * wg, 0), stage=wg)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
