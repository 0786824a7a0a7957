# mutant: drop-async-wait
# original: corpus/attention/sm90_decode_split_kv.cake
# line: 74: lm.mma_wait(pending=0)
# change: deleted `lm.mma_wait(pending=0)`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), decode_attend: seqlen_k in {1, 80, 144, 208, 336, 400}; block_idx 0 of grid_dim 1; decode_combine: S in {1, 2, 3}; block_idx 0 of grid_dim 1; 745 states; first violation: sync.race: wg reads o@wg [0, 16384) while its own MMA (its group is not retired) still accesses it at `lm.copy(Ow, o, coords=(kvh, split, 0, 0))` (line 75) (seqlen_k=1)
# expect-any: sync.race
# Hopper decode attention with split-KV (FlashDecoding / FA3 "split" path),
# two kernels in one file:
#  1) attend: CTA (kv_head, split) takes the 64 query rows of one KV head's
#     GQA group (e.g. 8 tokens x 8 q-heads) and the split's slice of the KV
#     cache, streams 64-key blocks of K and V^T through 3-slot rings on
#     ONE barrier per slot (derived expect_tx covers both tiles), and
#     writes an un-normalized partial O (f32) and its log-sum-exp to a
#     workspace.  One TMA warp, one consumer warpgroup.
#  2) combine: per KV head, merges the S partials with the LSE weights.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def decode_attend(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, Ow: LM.gmem, Lw: LM.gmem,
                  seqlen_k: LM.i32):
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(57344)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=8192,  shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_vt = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    s     = lm.regs(shape=(64, 64), dtype=lm.f32)
    p     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o     = lm.regs(shape=(64, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(64, 1), dtype=lm.f32)
    corr  = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(64, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    wg   = lm.role(warps=[4, 5, 6, 7])
    q_full = lm.barrier(count=1, prod=[load], cons=[wg], init_count=1)
    pipe   = lm.pipeline(stages=3)
    full   = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    kvh      = lm.block_idx(0)
    split    = lm.block_idx(1)
    n_all    = lm.cdiv(seqlen_k, 64)
    per      = lm.cdiv(n_all, lm.grid_dim(1))
    b_lo     = split * per
    n_blocks = max(min(per, n_all - b_lo), 0)

    with load:
        smem_q.tma_load(Q, coords=(kvh, 0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(empty, iter=j - 3)
            smem_k.tma_load(K, coords=(kvh, (b_lo + j) * 64, 0), iter=j, barrier=full)
            smem_vt.tma_load(Vt, coords=(kvh, 0, (b_lo + j) * 64), iter=j, barrier=full)

    with wg:
        lm.fill(o, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_blocks):
            lm.wait(full, iter=j)
            lm.mma(s, smem_q[0], smem_k[j], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.binary(s, s, 0.18033688, op="mul")
            lm.reduce(m_new, s, op="max", axis=1)
            lm.binary(m_new, m_new, m_i, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s, s, m_new, op="sub")
            lm.unary(s, s, op="exp2")
            lm.reduce(rsum, s, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.binary(o, o, corr, op="mul")
            lm.copy(m_i, m_new)
            lm.copy(p, s)
            lm.mma(o, p, smem_vt[j], init=False)
            lm.mma_commit()
            lm.arrive(empty, iter=j)
        lm.copy(Ow, o, coords=(kvh, split, 0, 0))
        lm.copy(Lw, m_i, coords=(kvh, split, 0, 0))
        lm.copy(Lw, l_i, coords=(kvh, split, 0, 1))

@cake.schedule(target="sm_90a")
def decode_combine(lm, Ow: LM.gmem, Lw: LM.gmem, O: LM.gmem, S: LM.i32):
    lm.assume(S > 0)
    o_s  = lm.regs(shape=(64, 64), dtype=lm.f32)
    o    = lm.regs(shape=(64, 64), dtype=lm.f32)
    m_s  = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_s  = lm.regs(shape=(64, 1), dtype=lm.f32)
    m    = lm.regs(shape=(64, 1), dtype=lm.f32)
    mn   = lm.regs(shape=(64, 1), dtype=lm.f32)
    a    = lm.regs(shape=(64, 1), dtype=lm.f32)
    b    = lm.regs(shape=(64, 1), dtype=lm.f32)
    l    = lm.regs(shape=(64, 1), dtype=lm.f32)
    ob   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    kvh = lm.block_idx(0)
    with wg:
        lm.fill(o, 0.0)
        lm.fill(m, -1e30)
        lm.fill(l, 0.0)
        for sp in lm.range(0, S):
            lm.copy(o_s, Ow, coords=(kvh, sp, 0, 0))
            lm.copy(m_s, Lw, coords=(kvh, sp, 0, 0))
            lm.copy(l_s, Lw, coords=(kvh, sp, 0, 1))
            lm.binary(mn, m, m_s, op="max")
            lm.binary(a, m, mn, op="sub")
            lm.unary(a, a, op="exp2")
            lm.binary(b, m_s, mn, op="sub")
            lm.unary(b, b, op="exp2")
            lm.binary(o, o, a, op="mul")
            lm.binary(o_s, o_s, b, op="mul")
            lm.binary(o, o, o_s, op="add")
            lm.binary(l, l, a, op="mul")
            lm.binary(l_s, l_s, b, op="mul")
            lm.binary(l, l, l_s, op="add")
            lm.copy(m, mn)
        lm.unary(l, l, op="recip")
        lm.binary(o, o, l, op="mul")
        lm.copy(ob, o)
        lm.copy(O, ob, coords=(kvh, 0, 0))
