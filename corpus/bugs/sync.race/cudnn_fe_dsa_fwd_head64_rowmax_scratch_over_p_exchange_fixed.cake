# FIXED form of cudnn_fe_dsa_fwd_head64_rowmax_scratch_over_p_exchange.cake
# (NVIDIA/cudnn-frontend PR #569, review finding of 2026-08-13 on
# dsa_fwd_sm100_head64.py, fixed before the merge; the stored kernel is the
# fixed text): a softmax_sync_barrier.arrive_and_wait() between the reads of
# the own score-exchange slot and the row-max stores into the linear view
# that aliases sPExchange[0, ...], and the one the stored kernel comments
# "Drain every peer read before the next tile overwrites the aliased
# score-exchange surface" after the peer row-max read.
# expect: pass
@cake.schedule(target="sm_100a")
def cudnn_fe_dsa_fwd_head64_rowmax_scratch_fixed(lm, Q: LM.tma2d, K: LM.tma2d, P: LM.gmem, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool  = lm.smem(65536)
    sq    = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16)
    sk    = pool.view(offset=49152, shape=(64, 64), dtype=lm.bf16, stages=2)
    xch   = pool.view(offset=0, shape=(128, 32), dtype=lm.f32)
    lin   = pool.view(offset=0, shape=(128, 1), dtype=lm.f32)
    s_acc = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    r_s   = lm.regs(shape=(32, 64), dtype=lm.f32)
    r_in  = lm.regs(shape=(32, 32), dtype=lm.f32)
    r_sum = lm.regs(shape=(32, 32), dtype=lm.f32)
    r_hm  = lm.regs(shape=(32, 1), dtype=lm.f32)
    r_pm  = lm.regs(shape=(32, 1), dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3], group=1)
    load    = lm.role(warps=[4])
    mma     = lm.role(warps=[8])

    kv       = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    mma_done = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    p_free   = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=4)
    xsync    = lm.named_barrier(roles=[softmax])

    q0 = lm.block_idx(0) * 128

    with load:
        sq.tma_load(Q, coords=(q0, 0), stage=0, barrier=q_full)
        for t in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=t - 2)
            sk.tma_load(K, coords=(64 * t, 0), iter=t, barrier=k_full)

    with mma:
        lm.wait(q_full, stage=0)
        for t in lm.range(0, n_tiles):
            lm.wait(k_full, iter=t)
            lm.wait(p_free, iter=t - 1)
            lm.mma(s_acc, sq[0], sk[t], init=True)
            lm.mma_commit(barrier=k_empty, iter=t)
            lm.mma_commit(barrier=mma_done, iter=t)

    with softmax:
        w = lm.instance()
        peer = (w + 2) % 4
        for t in lm.range(0, n_tiles):
            lm.wait(mma_done, iter=t)
            lm.tmem_load(r_s, s_acc[32 * w:32 * w + 32, :])
            lm.tmem_load_wait()
            lm.arrive(p_free, iter=t)
            # paired warps exchange the half of the score row they do not own
            lm.copy(xch[0][32 * peer:32 * peer + 32, :], r_s[:, 32:64])
            lm.sync(xsync)
            lm.copy(r_in, xch[0][32 * w:32 * w + 32, :])
            lm.sync(xsync)
            lm.binary(r_sum, r_s[:, 0:32], r_in, op="add")
            lm.reduce(r_hm, r_sum, op="max", axis=1)
            # the row-max exchange reuses the first 512 bytes of the buffer
            lm.copy(lin[0][32 * w:32 * w + 32, :], r_hm)
            lm.sync(xsync)
            lm.copy(r_pm, lin[0][32 * peer:32 * peer + 32, :])
            lm.sync(xsync)
            lm.binary(r_hm, r_hm, r_pm, op="max")
            lm.copy(P, r_sum, coords=(q0 + 32 * w, 32 * t))
