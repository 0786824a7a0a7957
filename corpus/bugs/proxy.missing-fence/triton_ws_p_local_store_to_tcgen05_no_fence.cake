# BUG (proxy.missing-fence): triton-lang/triton PR #8317 ("[WS] Add a missing
# fence after local_store for MMAv5 consumers", 2025-09-29).  Triton's
# automatic warp specialization lowers a buffer handed between partitions
# through an aref (LowerAref.cpp): the producer partition writes the buffer
# and arrives on the aref's full barrier, the consumer partition waits and
# uses it.  When the producer writes with the generic proxy (local_store /
# local_alloc of a register tensor) and the consumer is a tcgen05 MMA
# (MMAv5, an async-proxy read of its shared operands), a fence.proxy.async
# is needed after the write and before the arrive; the lowering emitted
# none.  The PR's test is an attention forward whose softmax partition
# puts P = exp(S - m) in shared memory (`%P_smem = ttg.local_alloc %P`) for
# the P.V MMA of the MMA partition: that MMA may read stale P.
# Modelled: sm_100a attention forward with three partitions: load (1 warp,
# TMA for Q, K, V through 2-stage rings), MMA (1 warp, S = Q K^T into TMEM,
# O += P V into TMEM), softmax (4 warps: S from TMEM, P into the one-slot
# aref buffer p_smem, arrive p_full; the P.V MMA's commit frees it through
# p_empty).  Left out: the O rescaling (correction) and the row sums'
# normalization, masking, the epilogue's TMA store (a register store here).
# Fix: triton_ws_p_local_store_to_tcgen05_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def triton_ws_p_local_store_to_tcgen05_no_fence(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d,
                                                Out: LM.gmem, seqlen_k: LM.i32):
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(114688)
    smem_q  = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=49152, shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)
    o     = lm.regs(shape=(128, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(128, 1), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)    # aref full
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)    # aref empty

    n_blocks = lm.cdiv(seqlen_k, 128)
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with load:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 128, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            smem_vt.tma_load(Vt, coords=(head, 0, j * 128), iter=j, barrier=v_full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_blocks):
            lm.wait(k_full, iter=j)
            if j > 0:
                lm.wait(p_full, iter=j - 1)                 # S of block j - 1 consumed
            lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)
            lm.mma_commit(barrier=k_empty, iter=j)
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.wait(v_full, iter=j)
            lm.mma(tmem_o, smem_p[j], smem_vt[j], init=(j == 0))   # expect-error: proxy.missing-fence
            lm.mma_commit(barrier=v_empty, iter=j)
            lm.mma_commit(barrier=p_empty, iter=j)

    with soft:
        for j in lm.range(0, n_blocks):
            lm.wait(s_full, iter=j)
            lm.copy(s, tmem_s)
            lm.reduce(m_i, s, op="max", axis=1)
            lm.binary(s, s, m_i, op="sub")
            lm.unary(s, s, op="exp2")
            lm.wait(p_empty, iter=j - 1)                   # aref get_empty
            lm.copy(smem_p[j], s)                          # local_store P (generic proxy)
            lm.arrive(p_full, iter=j)                      # aref put: no fence before it
        lm.wait(p_empty, iter=n_blocks - 1)                # the last P.V MMA completed
        lm.copy(o, tmem_o)
        lm.copy(Out, o, coords=(q0, head * 64))
