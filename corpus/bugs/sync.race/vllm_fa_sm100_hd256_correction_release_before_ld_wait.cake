# BUG (sync.race): vllm-project/flash-attention PR #182 ("[SM100] hd256
# 2CTA fwd: add missing tcgen05.wait::ld before TMEM slot releases",
# 2026-08-25; follow-up to PR #180).  sm100_hd256_2cta_fmha_forward.py: the
# correction warps read TMEM with tcgen05.ld and then release the TMEM slot
# to its next writer, but tcgen05.ld is asynchronous and only
# tcgen05.wait::ld orders its TMEM read before a later writer (PTX ISA
# 9.7.17.6.4.4: tcgen05.ld -> tcgen05.wait::ld -> mbarrier.arrive).  Three
# releases skipped the wait: `correction_rescale` loads the row statistics
# (Ld32x32bOp(2)) and calls stats_handle.release(), after which the
# softmax warps tcgen05.st the next block's statistics; it rescales O
# through an ld/st ring and releases O; `correction_epilog` loads the
# final O tile (Ld32x32bOp(32) x4) and calls o_handle.release(), after
# which the MMA warp overwrites O with the next tile's P.V.  The softmax
# warps' S release already had the wait.  The fix adds
# cute.arch.fence_view_async_tmem_load() (tcgen05.wait::ld) before each
# release.
# Modelled: one CTA of the 2-CTA pair (the peer's MMA half left out), a
# persistent loop over n_tiles query tiles of n_kv K/V blocks each, the
# FA4 roles: the load warp 9 brings Q per tile and K / V through a 2-stage
# TMA ring; the MMA warp 8 computes S = Q.K^T into TMEM (`s_full`), and
# O += P.V into TMEM once softmax published P (`p_full`; the tile's first
# block with init, after `o_empty` of the tile before); the softmax warps
# 0-3 (one instance) read S (tcgen05.ld + wait, then `s_empty`), write P
# to shared memory (the kernel keeps P in TMEM; a TMEM A operand is not in
# the IR) and each block's row statistics (max, sum) to TMEM with
# tcgen05.st, published on `stats_full`; the correction warps 4-7 (one
# instance) load the statistics (tcgen05.ld) and release them on
# `stats_empty`, and at the tile's end load O in four 32-column chunks
# and release O on `o_empty`, then scale O by 1 / sum and TMA-store it.
# Left out: the O rescale ring (the third site), masking, the 2-CTA
# pair's remote arrivals.
# Fix: vllm_fa_sm100_hd256_correction_release_before_ld_wait_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def vllm_fa_sm100_hd256_correction_release_before_ld_wait(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d,
                                                         n_tiles: LM.i32, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(131072)
    smem_q  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_p  = pool.view(offset=81920,  shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_o  = pool.view(offset=98304,  shape=(128, 128), dtype=lm.bf16)
    tmem_o  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_s  = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    tmem_st = lm.tmem(cols=256, width=32,  shape=(128, 32), dtype=lm.f32)   # row max / row sum (2 used)
    s_r     = lm.regs(shape=(128, 128), dtype=lm.f32)
    p_r     = lm.regs(shape=(128, 64), dtype=lm.bf16)
    st_w    = lm.regs(shape=(128, 32), dtype=lm.f32)
    st_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    rsum    = lm.regs(shape=(128, 1), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 128), dtype=lm.f32)

    softmax    = lm.role(warps=[0, 1, 2, 3])
    correction = lm.role(warps=[4, 5, 6, 7])
    mma        = lm.role(warps=[8])
    load       = lm.role(warps=[9])

    pipe        = lm.pipeline(stages=2)
    kv_full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    kv_empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    q_full      = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_empty     = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    s_full      = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    s_empty     = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_full      = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_empty     = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    stats_full  = lm.barrier(count=1, prod=[softmax], cons=[correction], init_count=1)
    stats_empty = lm.barrier(count=1, prod=[correction], cons=[softmax], init_count=1)
    o_full      = lm.barrier(count=1, prod=[mma], cons=[correction], init_count=1)
    o_empty     = lm.barrier(count=1, prod=[correction], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, n_tiles):
            m0 = 128 * (lm.block_idx(0) + t * lm.grid_dim(0))
            lm.wait(q_empty, iter=t - 1)
            smem_q.tma_load(Q, coords=(m0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(kv_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(128 * j, 0), iter=it, barrier=kv_full)
                smem_v.tma_load(V, coords=(0, 64 * j), iter=it, barrier=kv_full)

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(q_full, iter=t)
            lm.wait(o_empty, iter=t - 1)                  # the correction warps have read the last tile's O
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(kv_full, iter=it)
                lm.wait(s_empty, iter=it - 1)
                lm.mma(tmem_s, smem_q[t], smem_k[it], init=True)            # S = Q.K^T
                lm.mma_commit(barrier=s_full, iter=it)
                lm.wait(p_full, iter=it)
                lm.mma(tmem_o, smem_p[it], smem_v[it], init=(j == 0))      # expect-error: sync.race
                lm.mma_commit(barrier=kv_empty, iter=it)
                lm.mma_commit(barrier=p_empty, iter=it)
            lm.mma_commit(barrier=q_empty, iter=t)
            lm.mma_commit(barrier=o_full, iter=t)

    with softmax:
        lm.fill(st_w, 0.0)                                # the row max column (its update left out)
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(s_full, iter=it)
                lm.tmem_load(s_r, tmem_s)
                lm.tmem_load_wait()
                lm.arrive(s_empty, iter=it)
                lm.unary(s_r, s_r, op="exp2")
                lm.reduce(rsum, s_r, op="sum", axis=1)    # this block's row sum (row max left out)
                lm.copy(st_w[:, 1:2], rsum)
                lm.wait(p_empty, iter=it - 1)
                lm.copy(p_r, s_r[:, 0:64])
                lm.copy(smem_p[it], p_r)
                lm.fence_proxy()
                lm.arrive(p_full, iter=it)
                lm.wait(stats_empty, iter=it - 1)
                lm.tmem_store(tmem_st, st_w)              # expect-error: sync.race
                lm.tmem_store_wait()
                lm.arrive(stats_full, iter=it)

    with correction:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, n_kv):
                it = t * n_kv + j
                lm.wait(stats_full, iter=it)
                lm.tmem_load(st_r, tmem_st)               # expect-error: sync.race
                # BUG: no tcgen05.wait::ld before stats_handle.release()
                lm.arrive(stats_empty, iter=it)
                lm.tmem_load_wait()
            # correction_epilog
            lm.wait(o_full, iter=t)
            for c in lm.range(0, 4):
                lm.tmem_load(o_r[:, 32 * c:32 * c + 32], tmem_o[:, 32 * c:32 * c + 32])   # expect-error: sync.race
            # BUG: no tcgen05.wait::ld before o_handle.release()
            lm.arrive(o_empty, iter=t)
            lm.tmem_load_wait()
            lm.binary(o_r, o_r, st_r[:, 1:2], op="div")
            lm.copy(smem_o[0], o_r)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(128 * (lm.block_idx(0) + t * lm.grid_dim(0)), 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
