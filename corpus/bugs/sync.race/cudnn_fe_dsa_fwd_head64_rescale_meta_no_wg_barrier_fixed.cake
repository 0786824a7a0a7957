# FIXED form of cudnn_fe_dsa_fwd_head64_rescale_meta_no_wg_barrier.cake
# (NVIDIA/cudnn-frontend PR #569, review finding of 2026-08-27; the stored
# dsa_fwd_sm100_head64.py has the fix): softmax_sync_barrier.arrive_and_wait()
# before _rescale_o_tmem on every tile after the first, so warps 2 and 3 read
# sScale and sGroupRescale only after warps 0 and 1 have written them.
# expect: pass
@cake.schedule(target="sm_100a")
def cudnn_fe_dsa_fwd_head64_rescale_meta_wg_barrier(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.gmem, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool   = lm.smem(98304)
    sq     = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16)
    sk     = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2)
    sv     = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2)
    sp     = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16)
    sscale = pool.view(offset=65536, shape=(64, 1), dtype=lm.f32)
    sgrp   = pool.view(offset=65792, shape=(2, 1), dtype=lm.i32)
    s_acc  = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    o_acc  = lm.tmem(cols=64, width=64, shape=(128, 64), dtype=lm.f32)
    r_s    = lm.regs(shape=(32, 64), dtype=lm.f32)
    r_p    = lm.regs(shape=(32, 64), dtype=lm.bf16)
    r_sc   = lm.regs(shape=(32, 1), dtype=lm.f32)
    r_flg  = lm.regs(shape=(1, 1), dtype=lm.i32)
    r_flgs = lm.regs(shape=(2, 1), dtype=lm.i32)
    r_o    = lm.regs(shape=(32, 64), dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3], group=1)
    load    = lm.role(warps=[4])
    mma     = lm.role(warps=[8])

    kv       = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    kv_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    kv_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    mma_done = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    p_free   = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=4)
    so_ready = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=4)
    pv_done  = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    wg0      = lm.named_barrier(roles=[softmax])

    q0 = lm.block_idx(0) * 128

    with load:
        sq.tma_load(Q, coords=(q0, 0), stage=0, barrier=q_full)
        for t in lm.range(0, n_tiles):
            lm.wait(kv_empty, iter=t - 2)
            sk.tma_load(K, coords=(64 * t, 0), iter=t, barrier=kv_full)
            sv.tma_load(V, coords=(0, 64 * t), iter=t, barrier=kv_full)

    with mma:
        lm.wait(q_full, stage=0)
        for t in lm.range(0, n_tiles):
            lm.wait(kv_full, iter=t)
            lm.wait(p_free, iter=t - 1)
            lm.mma(s_acc, sq[0], sk[t], init=True)
            lm.mma_commit(barrier=mma_done, iter=t)
            # QK(t) is issued before PV(t - 1): the softmax of tile t overlaps it
            if t > 0:
                lm.wait(so_ready, iter=t - 1)
                lm.mma(o_acc, sp[0], sv[t - 1], init=(t == 1))
                lm.mma_commit(barrier=kv_empty, iter=t - 1)
                lm.mma_commit(barrier=pv_done, iter=t - 1)
        lm.wait(so_ready, iter=n_tiles - 1)
        lm.mma(o_acc, sp[0], sv[n_tiles - 1], init=(n_tiles == 1))
        lm.mma_commit(barrier=kv_empty, iter=n_tiles - 1)
        lm.mma_commit(barrier=pv_done, iter=n_tiles - 1)

    with softmax:
        w = lm.instance()
        h0 = 32 * (w % 2)
        for t in lm.range(0, n_tiles):
            lm.wait(mma_done, iter=t)
            lm.tmem_load(r_s, s_acc[32 * w:32 * w + 32, :])
            lm.tmem_load_wait()
            lm.arrive(p_free, iter=t)
            lm.sync(wg0)                  # the paired-warp score exchange's barriers
            lm.reduce(r_sc, r_s, op="max", axis=1)
            lm.unary(r_sc, r_sc, op="exp2")
            # warps 0 and 1 publish the per-head rescale factor and the group flag
            if w < 2:
                lm.copy(sscale[0][h0:h0 + 32, :], r_sc)
                lm.reduce(r_flg, r_sc, op="max", axis=0)
                lm.copy(sgrp[0][w:w + 1, :], r_flg)
            # the single P stage: PV(t - 1) must have read it
            lm.wait(pv_done, iter=t - 1)
            lm.copy(r_p, r_s)
            lm.copy(sp[0][32 * w:32 * w + 32, :], r_p)
            if t > 0:
                # the fix: "Warps 0 and 1 publish the rescale metadata.
                # Synchronize all four WG0 warps before any of them consume it."
                lm.sync(wg0)
                lm.copy(r_flgs, sgrp[0])
                lm.copy(r_sc, sscale[0][h0:h0 + 32, :])
                lm.tmem_load(r_o, o_acc[32 * w:32 * w + 32, :])
                lm.tmem_load_wait()
                lm.binary(r_o, r_o, 0.5, op="mul")
                lm.tmem_store(o_acc[32 * w:32 * w + 32, :], r_o)
                lm.tmem_store_wait()
            lm.fence_proxy()
            lm.arrive(so_ready, iter=t)
        lm.wait(pv_done, iter=n_tiles - 1)
        lm.tmem_load(r_o, o_acc[32 * w:32 * w + 32, :])
        lm.tmem_load_wait()
        lm.copy(O, r_o, coords=(q0 + 32 * w, 0))
