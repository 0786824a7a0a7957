# FIXED form of fa3_sliding_window_v_skipped_outside_window.cake: the
# producer skips the V^T load of the key blocks before the sliding window
# and the consumers skip P V there too (the softmax of those blocks is
# masked to 0 in local attention), so no one reads a V^T slot the producer
# did not load.  Proved since session 41 (helper fa3kb: one key loop with
# the window's first block as a kind boundary in the lap state, docs/z3.md
# "A kind boundary in the lap state"); the covering values run the trip
# counts around the first block inside the window (17 blocks before the
# end, helper cover39).
# Edited from corpus/attention/sm90_fa3_fwd.cake:
# FlashAttention-3 style forward pass on Hopper (non-persistent).
# One CTA per (128-row query block, head).  head_dim = 64, key block = 64.
#  * producer warpgroup (setmaxnreg 24): TMA-loads Q once (q_full, one slot,
#    one phase) and streams K and V^T blocks through two independent 2-slot
#    rings (separate pipelines like FA3's pipeline_k / pipeline_v, so S=QK^T
#    can start before V lands).
#  * two consumer warpgroups (setmaxnreg 240): instance i owns query rows
#    [64i, 64i+64).  Per key block j: S = Q_i K_j^T (SS wgmma), retire,
#    release K; online softmax in registers (scale folded into log2 domain,
#    running max m_i, running sum l_i, rescale of O); P = bf16(S);
#    O += P V_j (RS wgmma: P from registers, V^T slot from smem), retire,
#    release V.  Each empty barrier gets one arrival per consumer instance.
#  * epilogue: O /= l, bf16, st.shared into the instance's own slot, fence,
#    TMA store, drain.
# Vt is V stored transposed (head_dim-major) so the smem slot is the
# [N=head_dim, K=keys] operand that lm.mma's b expects.
# Broadcasting: (64,64) op (64,1) broadcasts the row statistic.
# expect: pass
@cake.schedule(target="sm_90a")
def fa3_fwd(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
            seqlen_q: LM.i32, seqlen_k: LM.i32, window: LM.i32):
    lm.assume(seqlen_q > 0)
    lm.assume(seqlen_k > 0)
    lm.assume(window >= 16)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o  = pool.view(offset=49152, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    s_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    p     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_blk = lm.regs(shape=(64, 1), dtype=lm.f32)
    corr  = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(64, 1), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumers], init_count=1)
    k_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    v_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)

    n_blocks = lm.cdiv(seqlen_k, 64)
    first_in_window = n_blocks - window   # the first key block inside the sliding window
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with producer:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 64, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            if j >= first_in_window:
                smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)
            else:
                lm.arrive(v_full, iter=j)

    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_blocks):
            lm.wait(k_full, iter=j)
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(k_empty, iter=j)
            # online softmax (base 2, softmax_scale * log2(e) = 0.18033688 for d=64)
            lm.binary(s_acc, s_acc, 0.18033688, op="mul")
            lm.reduce(m_blk, s_acc, op="max", axis=1)
            lm.binary(m_new, m_i, m_blk, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s_acc, s_acc, m_new, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(m_i, m_new)
            lm.copy(p, s_acc)
            lm.wait(v_full, iter=j)
            if j >= first_in_window:
                lm.mma(o_acc, p, smem_vt[j], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j)
        # epilogue
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[lm.instance()], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
