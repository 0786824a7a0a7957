# Broken twin of corpus/attention/sm90_flashmla_v1_decode.cake: the loader
# issues the cp.async prefetch of key block j+1 before the __syncthreads of
# iteration j instead of after it, so it overwrites the sK buffer that the
# math warpgroup's wgmmas of block j-1 may still be reading.  One edit: the
# lm.sync(cta) moved below the prefetch.
# expect: sync.race
@cake.schedule(target="sm_90a")
def flashmla_v1_decode(lm, Q: LM.gmem, Kc: LM.gmem, Oaccum: LM.gmem, n_blocks: LM.i32):
    lm.assume(n_blocks > 0)
    pool       = lm.smem(82176)
    smem_q     = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_k     = pool.view(offset=24576, shape=(64, 64),  dtype=lm.bf16, stages=6, swizzle="128B")
    smem_vt    = pool.view(offset=24576, shape=(64, 64),  dtype=lm.bf16, stages=6, swizzle="128B")
    smem_p     = pool.view(offset=73728, shape=(64, 64),  dtype=lm.bf16, stages=1)
    smem_scale = pool.view(offset=81920, shape=(1, 64),   dtype=lm.f32,  stages=1)
    smem_max   = pool.view(offset=0,     shape=(1, 64),   dtype=lm.f32,  stages=1)
    smem_sum   = pool.view(offset=256,   shape=(1, 64),   dtype=lm.f32,  stages=1)
    smem_o     = pool.view(offset=512,   shape=(64, 128), dtype=lm.f32,  stages=1)

    s_acc = lm.regs(shape=(64, 64),  dtype=lm.f32)
    p     = lm.regs(shape=(64, 64),  dtype=lm.bf16)
    o     = lm.regs(shape=(64, 64),  dtype=lm.f32)
    o_all = lm.regs(shape=(64, 128), dtype=lm.f32)
    m_i   = lm.regs(shape=(1, 64),   dtype=lm.f32)
    m_blk = lm.regs(shape=(1, 64),   dtype=lm.f32)
    m_new = lm.regs(shape=(1, 64),   dtype=lm.f32)
    corr  = lm.regs(shape=(1, 64),   dtype=lm.f32)
    l_i   = lm.regs(shape=(1, 64),   dtype=lm.f32)
    rsum  = lm.regs(shape=(1, 64),   dtype=lm.f32)

    math   = lm.role(warps=[0, 1, 2, 3])
    loader = lm.role(warps=[4, 5, 6, 7])
    cta           = lm.named_barrier(roles=[math, loader])
    s_ready       = lm.named_barrier(roles=[math, loader])
    softmax_ready = lm.named_barrier(roles=[math, loader])

    m0 = lm.block_idx(0) * 64
    kv = lm.block_idx(1) * 65536

    with loader:
        lm.fill(o, 0.0)
        smem_q.cp_async(Q, coords=(m0, 0), stage=0)
        smem_q.cp_async(Q, coords=(m0, 64), stage=1)
        smem_q.cp_async(Q, coords=(m0, 128), stage=2)
        smem_k.cp_async(Kc, coords=(kv, 0), stage=0)
        smem_k.cp_async(Kc, coords=(kv, 64), stage=1)
        smem_k.cp_async(Kc, coords=(kv, 128), stage=2)
        lm.cp_async_commit()
        for j in lm.range(0, n_blocks):
            lm.cp_async_wait(pending=0)
            lm.fence_proxy()
            if j + 1 < n_blocks:
                nb = 3 * ((j + 1) % 2)
                smem_k.cp_async(Kc, coords=(kv + 64 * (j + 1), 0), stage=nb)  # expect-error: sync.race
                smem_k.cp_async(Kc, coords=(kv + 64 * (j + 1), 64), stage=nb + 1)  # expect-error: sync.race
                smem_k.cp_async(Kc, coords=(kv + 64 * (j + 1), 128), stage=nb + 2)  # expect-error: sync.race
                lm.cp_async_commit()
            lm.sync(cta)
            lm.sync(s_ready)
            lm.copy(corr, smem_scale[0])
            lm.copy(p, smem_p[0])
            lm.binary(o, o, corr, op="mul")
            lm.mma(o, p, smem_vt[3 * (j % 2) + 1], init=False)  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=0)
        lm.sync(softmax_ready)
        lm.copy(m_i, smem_max[0])
        lm.copy(l_i, smem_sum[0])
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o, o, l_i, op="mul")
        lm.sync(cta)
        lm.copy(smem_o[0][:, 64:128], o)
        lm.sync(cta)

    with math:
        lm.fill(o, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        for j in lm.range(0, n_blocks):
            lm.sync(cta)
            b = 3 * (j % 2)
            lm.mma(s_acc, smem_q[0], smem_k[b], init=True)  # expect-error: sync.race
            lm.mma(s_acc, smem_q[1], smem_k[b + 1], init=False)  # expect-error: sync.race
            lm.mma(s_acc, smem_q[2], smem_k[b + 2], init=False)  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.binary(s_acc, s_acc, 0.0601122, op="mul")
            lm.reduce(m_blk, s_acc, op="max", axis=1)
            lm.binary(m_new, m_i, m_blk, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s_acc, s_acc, m_new, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            lm.copy(p, s_acc)
            lm.copy(smem_p[0], p)
            lm.copy(smem_scale[0], corr)
            lm.bar_arrive(s_ready)
            lm.binary(o, o, corr, op="mul")
            lm.mma(o, p, smem_vt[b], init=False)  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=0)
        lm.copy(smem_max[0], m_i)
        lm.copy(smem_sum[0], l_i)
        lm.bar_arrive(softmax_ready)
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o, o, l_i, op="mul")
        lm.sync(cta)
        lm.copy(smem_o[0][:, 0:64], o)
        lm.sync(cta)
        lm.copy(o_all, smem_o[0])
        lm.copy(Oaccum, o_all, coords=(m0, 0))
