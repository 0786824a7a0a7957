# FlashMLA decode, first release (deepseek-ai/FlashMLA csrc/flash_fwd_mla_kernel.h,
# compute_attn_1rowblock_splitkv_mla): 256 threads, no mbarriers, two
# warpgroups with different jobs, scaled down here to a head dim of 192
# (three 64-column chunks; K doubles as V, whose 128 columns are the first
# two chunks) and a key block of 64.
#  * warpgroup 1 is the loader: cp.async of Q and of K block 0, then per key
#    block j: cp_async_wait<0>, __syncthreads, cp.async of block j+1 into the
#    other half of the double-buffered sK, bar.sync SReady, read P and the
#    row rescale factors from smem, O[:, 64:128] += P V (RS wgmma from the
#    current sK buffer), wgmma wait<0>.
#  * warpgroup 0 is the math warpgroup: per key block __syncthreads, S = Q K^T
#    (SS wgmma over the three chunks, wait<0>), online softmax, P and the
#    rescale factors to smem, bar.arrive SReady, O[:, 0:64] += P V.
#  * after the loop warpgroup 0 writes row max / row sum into smem that
#    aliases sQ (a union), bar.arrive SoftmaxReady; warpgroup 1 bar.sync
#    SoftmaxReady and reads them; then the store: __syncthreads, both
#    halves of O to sO (aliasing sQ and sK), __syncthreads, warpgroup 0
#    copies sO to global.
#  * sQ and sK are written by cp.async (generic proxy) and read by wgmma
#    (async proxy): the loader fences (fence.proxy.async) after its
#    cp_async_wait and before the __syncthreads that hands the buffer to the
#    math warpgroup.  The first release has no such fence; the PTX ISA asks
#    for one between generic writes and wgmma's async-proxy reads of the same
#    shared memory (FA3's cp.async paths issue fence_view_async_shared there),
#    so this file carries it and its twin without it is proxy.missing-fence.
# expect: pass
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
            lm.sync(cta)
            if j + 1 < n_blocks:
                nb = 3 * ((j + 1) % 2)
                smem_k.cp_async(Kc, coords=(kv + 64 * (j + 1), 0), stage=nb)
                smem_k.cp_async(Kc, coords=(kv + 64 * (j + 1), 64), stage=nb + 1)
                smem_k.cp_async(Kc, coords=(kv + 64 * (j + 1), 128), stage=nb + 2)
                lm.cp_async_commit()
            lm.sync(s_ready)
            lm.copy(corr, smem_scale[0])
            lm.copy(p, smem_p[0])
            lm.binary(o, o, corr, op="mul")
            lm.mma(o, p, smem_vt[3 * (j % 2) + 1], init=False)
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
            lm.mma(s_acc, smem_q[0], smem_k[b], init=True)
            lm.mma(s_acc, smem_q[1], smem_k[b + 1], init=False)
            lm.mma(s_acc, smem_q[2], smem_k[b + 2], init=False)
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
            lm.mma(o, p, smem_vt[b], init=False)
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
