# JAX Pallas Mosaic GPU FlashAttention-3 forward, causal (jax-ml/jax,
# jax/experimental/pallas/ops/gpu/attention_mgpu.py, _attention_forward with
# config.causal; block_q = block_kv = head_dim = 64, max_concurrent_steps =
# 2): the non-causal form is corpus/attention/sm90_pallas_mgpu_fa3_schedule_mbarrier.cake.
# With causal masking the two compute warpgroups of a CTA need different
# numbers of KV steps (kv_steps = cdiv(q_seq_base + block_q, block_kv):
# 2 * q_blk + 1 for warpgroup 0, 2 * q_blk + 2 for warpgroup 1), while the
# memory warpgroup streams block_max_kv_steps = 2 * q_blk + 2 of them.  The
# warpgroup that finishes early runs epilogue_kv_loop ("This loop makes sure
# that all the pipelined KV data is processed, even if one compute wg
# finishes early"): per remaining step it arrives on both consumed barriers
# without reading the slot and passes the schedule mbarrier twice, as a KV
# step would.  (The kernel splits the causal steps into an unmasked and a
# masked loop with one body; they are one loop here.)  The trip counts read
# the block index (lax.axis_index("q_seq")): the bounded check runs several
# block indices; the proof covers every block index (docs/z3.md "Loops
# bounded by the block index: the index as a parameter").
# Bug twin: corpus/bugs/sync.arrival-underflow/pallas_mgpu_fa3_causal_no_epilogue_kv_loop.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def pallas_mgpu_fa3_fwd_causal(lm, Q: LM.tma3d, K: LM.tma3d, V: LM.tma3d, O: LM.tma3d):
    pool  = lm.smem(49152)
    qo    = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")  # qo_smem2[wg]
    k_s   = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    v_s   = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    p16   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    o16   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    m_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_ij  = lm.regs(shape=(64, 1), dtype=lm.f32)
    alpha = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(64, 1), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4, regs=232)
    memory  = lm.role(warps=[8, 9, 10, 11], regs=40)

    kv_pipe    = lm.pipeline(stages=2)
    k_bar      = lm.barrier(prod=[memory], cons=[compute], init_count=1, pipeline=kv_pipe)
    v_bar      = lm.barrier(prod=[memory], cons=[compute], init_count=1, pipeline=kv_pipe)
    k_consumed = lm.barrier(prod=[compute], cons=[memory], init_count=2, pipeline=kv_pipe)
    v_consumed = lm.barrier(prod=[compute], cons=[memory], init_count=2, pipeline=kv_pipe)
    q_bar      = lm.barrier(count=2, prod=[compute], cons=[compute], init_count=1)
    schedule   = lm.barrier(count=1, prod=[compute], cons=[compute], init_count=2)

    b     = lm.block_idx(0)
    q_blk = lm.block_idx(1)
    steps = 2 * q_blk + 2                    # block_max_kv_steps = cdiv((q_blk + 1) * 128, 64)
    head  = lm.block_idx(2)

    with compute:
        wg = lm.instance()
        q0 = q_blk * 128 + wg * 64
        qo.tma_load(Q, coords=(b, q0, head), stage=wg, barrier=q_bar)
        lm.wait(q_bar, stage=wg)
        lm.fill(m_i, -1.0e30)
        lm.fill(l_i, 0.0)
        lm.fill(acc, 0.0)
        my_steps = 2 * q_blk + 1 + wg            # kv_steps = cdiv(q_seq_base + 64, 64)
        lm.wait(k_bar, iter=0)
        if wg == 1:
            lm.arrive(schedule, stage=0)
            lm.wait(schedule, stage=0)
        for j in lm.range(0, my_steps):
            lm.mma(s_acc, qo[wg], k_s[j], init=True)       # QK
            lm.mma_commit()
            lm.arrive(schedule, stage=0)                   # perform_schedule_barrier
            lm.wait(schedule, stage=0)
            lm.mma_wait(pending=0)                         # acc_ref[...]
            lm.arrive(k_consumed, iter=j)
            lm.reduce(m_ij, s_acc, op="max", axis=1)
            lm.binary(m_ij, m_ij, m_i, op="max")
            lm.binary(alpha, m_i, m_ij, op="sub")
            lm.unary(alpha, alpha, op="exp2")
            lm.copy(m_i, m_ij)
            lm.binary(s_acc, s_acc, m_ij, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.binary(acc, acc, alpha, op="mul")
            lm.binary(l_i, l_i, alpha, op="mul")
            lm.copy(p16, s_acc)
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, rsum, op="add")
            lm.arrive(schedule, stage=0)                   # end_softmax_barriers
            lm.wait(v_bar, iter=j)
            lm.wait(schedule, stage=0)
            lm.mma(acc, p16, v_s[j], init=False)           # PV
            lm.mma_commit()
            if j + 1 < my_steps:
                lm.wait(k_bar, iter=j + 1)
            lm.mma_wait(pending=0)
            lm.arrive(v_consumed, iter=j)
        for j in lm.range(my_steps, steps):      # epilogue_kv_loop: flush the pipeline
            lm.arrive(k_consumed, iter=j)
            lm.arrive(v_consumed, iter=j)
            lm.arrive(schedule, stage=0)
            lm.wait(schedule, stage=0)
            lm.arrive(schedule, stage=0)
            lm.wait(schedule, stage=0)
        if wg == 0:
            lm.arrive(schedule, stage=0)
            lm.wait(schedule, stage=0)
        lm.binary(acc, acc, l_i, op="div")
        lm.copy(o16, acc)
        lm.copy(qo[wg], o16)                               # qo_smem[...] = acc
        lm.fence_proxy()                                   # commit_smem
        qo.tma_store(O, coords=(b, q0, head), stage=wg)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with memory:
        for i in lm.range(0, 2):
            k_s.tma_load(K, coords=(b, i * 64, head), iter=i, barrier=k_bar)
            v_s.tma_load(V, coords=(b, i * 64, head), iter=i, barrier=v_bar)
        for j in lm.range(0, steps - 2):
            lm.wait(k_consumed, iter=j)
            k_s.tma_load(K, coords=(b, (j + 2) * 64, head), iter=j + 2, barrier=k_bar)
            lm.wait(v_consumed, iter=j)
            v_s.tma_load(V, coords=(b, (j + 2) * 64, head), iter=j + 2, barrier=v_bar)
