# BUG (sync.race): NVIDIA/cutlass PR #3653 ("[examples/77] Wait for TMEM
# statistics stores before publishing them to the correction warpgroup",
# open 2026-09-21; the same two sites as PR #2687, "Ex77: add 2 missing
# tmem store fences in fmha fwd mainloop", open 2025-10-10).  In the
# softmax path of the SM100 FMHA mainloop
# (examples/77_blackwell_fmha/collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp)
# the row statistics are written to TMEM and then published:
#     copy(tiled_tmem_storev, tTMEM_STOREVrS, tTMEM_STOREVtS);  // tcgen05.st
#     pipeline_c.producer_commit(pipeline_c_producer_state);     // mbarrier.arrive
# and the correction warpgroup waits on that pipeline and tcgen05.ld's the
# same columns.  With no tcgen05.wait::st between the store and the arrive,
# the notification is not ordered after the asynchronous TMEM write, so the
# correction warps can load the old statistics.  Twice per mainloop: the
# old/new row max of every KV tile, and the final row max / row sum
# (final_call).  The same function already waits (fence_view_async_tmem_store)
# before committing P.  The fix adds cutlass::arch::fence_view_async_tmem_store()
# before both commits.
# Modelled (one 128-row Q tile per CTA, head_dim 64, KV tiles of 128): the
# load warp, the MMA warp (S = Q K^T into TMEM, O += P V with P through
# shared memory), the softmax warpgroup (S -> registers, exp2, row sum; P
# to smem; the statistics row (row max, row sum) to TMEM) and the
# correction warpgroup (reads each tile's statistics, and the final ones
# for the epilogue: O / row sum, TMA store).  Left out: the second softmax
# warpgroup, O's rescale in TMEM, the row max arithmetic.
# Fix: cutlass_ex77_fmha_stats_tmem_store_no_wait_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def cutlass_ex77_fmha_stats_tmem_store_no_wait(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(131072)
    smem_q  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=49152,  shape=(64, 128), dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.bf16)
    smem_o  = pool.view(offset=114688, shape=(128, 64), dtype=lm.bf16)
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    tmem_st = lm.tmem(cols=192, width=32,  shape=(128, 32),  dtype=lm.f32)   # row max, row sum (2 used)
    s_r     = lm.regs(shape=(128, 128), dtype=lm.f32)
    st_w    = lm.regs(shape=(128, 32), dtype=lm.f32)
    st_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    rsum    = lm.regs(shape=(128, 1), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 64), dtype=lm.f32)

    softmax    = lm.role(warps=[0, 1, 2, 3])
    correction = lm.role(warps=[4, 5, 6, 7])
    mma        = lm.role(warps=[8])
    load       = lm.role(warps=[9])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    v_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    kv_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    s_full   = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    s_empty  = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_full   = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    p_empty  = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    c_full   = lm.barrier(count=1, prod=[softmax], cons=[correction], init_count=1)   # pipeline_c
    c_empty  = lm.barrier(count=1, prod=[correction], cons=[softmax], init_count=1)
    o_full   = lm.barrier(count=1, prod=[mma], cons=[correction], init_count=1)

    m0 = 128 * lm.block_idx(0)

    with load:
        smem_q.tma_load(Q, coords=(m0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_kv):
            lm.wait(kv_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(128 * j, 0), iter=j, barrier=k_full)
            smem_v.tma_load(V, coords=(0, 128 * j), iter=j, barrier=v_full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_kv):
            lm.wait(k_full, iter=j)
            lm.wait(s_empty, iter=j - 1)
            lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)                 # S = Q K^T
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(v_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.mma(tmem_o, smem_p[0], smem_v[j], init=(j == 0))             # O += P V
            lm.mma_commit(barrier=kv_empty, iter=j)
            lm.mma_commit(barrier=p_empty, iter=j)
        lm.mma_commit(barrier=o_full, stage=0)

    with softmax:
        lm.fill(st_w, 0.0)
        for j in lm.range(0, n_kv):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_r, tmem_s)
            lm.tmem_load_wait()
            lm.arrive(s_empty, iter=j)
            lm.unary(s_r, s_r, op="exp2")
            lm.reduce(rsum, s_r, op="sum", axis=1)
            lm.binary(st_w[:, 1:2], st_w[:, 1:2], rsum, op="add")
            lm.wait(p_empty, iter=j - 1)
            lm.copy(smem_p[0], s_r)
            lm.fence_proxy()
            lm.arrive(p_full, iter=j)
            lm.wait(c_empty, iter=j - 1)
            # old / new row max
            lm.tmem_store(tmem_st, st_w)   # expect-error: sync.race
            # BUG: no fence_view_async_tmem_store() (tcgen05.wait::st) before producer_commit
            lm.arrive(c_full, iter=j)
        lm.wait(c_empty, iter=n_kv - 1)
        lm.tmem_store(tmem_st, st_w)                                        # final_call: row max, row sum
        # BUG: the same at the final publication
        lm.arrive(c_full, iter=n_kv)

    with correction:
        for j in lm.range(0, n_kv + 1):
            lm.wait(c_full, iter=j)
            lm.tmem_load(st_r, tmem_st)                                     # expect-error: sync.race
            lm.tmem_load_wait()
            lm.arrive(c_empty, iter=j)
        lm.wait(o_full, stage=0)
        lm.tmem_load(o_r, tmem_o)
        lm.tmem_load_wait()
        lm.binary(o_r, o_r, st_r[:, 1:2], op="div")
        lm.copy(smem_o[0], o_r)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(m0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
