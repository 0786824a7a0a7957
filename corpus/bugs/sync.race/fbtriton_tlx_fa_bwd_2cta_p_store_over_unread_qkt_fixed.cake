# FIXED form of fbtriton_tlx_fa_bwd_2cta_p_store_over_unread_qkt.cake
# (facebookexperimental/triton PR #1992): a barrier over the compute task's
# 8 warps between the tcgen05.ld of qkT (and its tcgen05.wait::ld) and the
# tcgen05.st of P, so no warp's P store lands in a chunk another warp of
# the task has not read yet.
# expect: pass
# lower: unsupported (tcgen05.mma with A from TMEM: the lowering emits the shared-memory descriptor form of A only)
@cake.schedule(target="sm_100a")
def fbtriton_tlx_fa_bwd_2cta_p_store_over_unread_qkt_fixed(lm, K: LM.tma2d, Q: LM.tma2d, dO: LM.tma2d,
                                                           dV: LM.gmem, n_q: LM.i32):
    lm.assume(n_q > 0)
    pool    = lm.smem(65536)
    smem_k  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_q  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_do = pool.view(offset=32768, shape=(64, 64),  dtype=lm.f32, stages=2)
    tmem_qk = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)   # qkT; P over columns 64-127
    tmem_dv = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s_r  = lm.regs(shape=(32, 64), dtype=lm.f32)
    p_r  = lm.regs(shape=(32, 32), dtype=lm.f32)
    dv_r = lm.regs(shape=(32, 32), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])
    task    = lm.named_barrier(roles=[compute])                # the fix: all 8 compute warps

    ring    = lm.pipeline(stages=2)
    k_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    do_full = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=ring)
    do_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=ring)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    p_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=8)
    dv_full = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)

    kv0 = lm.block_idx(0) * 128

    with load:
        smem_k.tma_load(K, coords=(kv0, 0), stage=0, barrier=k_full)
        for j in lm.range(0, n_q):
            lm.wait(q_empty, iter=j - 1)
            smem_q.tma_load(Q, coords=(j * 128, 0), iter=j, barrier=q_full)
            lm.wait(do_empty, iter=j - 2)
            smem_do.tma_load(dO, coords=(0, j * 64), iter=j, barrier=do_full)

    with mma:
        lm.wait(k_full, stage=0)
        for j in lm.range(0, n_q):
            lm.wait(q_full, iter=j)
            lm.mma(tmem_qk, smem_k[0], smem_q[j], init=True)                 # qkT_j (over P_{j-1}: issue order)
            lm.mma_commit(barrier=q_empty, iter=j)
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.wait(do_full, iter=j)
            lm.mma(tmem_dv, tmem_qk[:, 64:128], smem_do[j], init=(j == 0))   # dV += P_j dO_j
            lm.mma_commit(barrier=do_empty, iter=j)
        lm.mma_commit(barrier=dv_full, stage=0)

    with compute:
        i = lm.instance()
        q = 32 * (i % 4)
        h = i // 4
        for j in lm.range(0, n_q):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_r, tmem_qk[q:q + 32, 64 * h:64 * h + 64])
            lm.tmem_load_wait()
            lm.unary(p_r, s_r[:, 0:32], op="exp2")                     # P = exp2(qkT - lse)
            lm.sync(task)                                              # every warp has read its qkT chunk
            lm.tmem_store(tmem_qk[q:q + 32, 64 + 32 * h:96 + 32 * h], p_r)
            lm.tmem_store_wait()
            lm.arrive(p_full, iter=j)
        lm.wait(dv_full, stage=0)
        lm.tmem_load(dv_r, tmem_dv[q:q + 32, 32 * h:32 * h + 32])
        lm.tmem_load_wait()
        lm.copy(dV, dv_r, coords=(kv0 + q, 32 * h))
