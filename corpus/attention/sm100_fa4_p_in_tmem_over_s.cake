# FlashAttention-4 forward with P kept in TMEM over the S columns it came
# from (Dao-AILab/flash-attention, flash_attn/cute/flash_fwd_sm100.py:
# `tmem_p_offset` overlaps `tmem_s_offset`; issue #2196 asks whether the
# next S MMA can overwrite P while the PV MMA still reads it, and the
# answer the kernel relies on is that the tcgen05 MMAs one thread issues
# run in issue order). The MMA warp computes S_j = Q K_j^T into the S
# region, the softmax warpgroup reads S_j, writes P_j (exp of S_j) back over
# the same columns with tcgen05.st, and the PV MMA reads P_j as its TMEM A
# operand; the MMA warp's next S MMA then overwrites P_j. Correct: no
# barrier orders the PV MMA before the next S MMA, issue order does, and the
# softmax reads S_{j+1} only after the commit that follows both.
# Modelled: one Q tile per CTA, a 2-stage K / V^T ring, one S/P buffer.
# Element types are f16 throughout (S accumulates in f16) so that S and P
# are one TMEM region (a second lm.tmem over the same columns is
# tmem.overlap). Left out: the row max / sum, the correction warpgroup and
# O's rescale, the second S buffer of the real kernel, the epilogue's TMA
# store.
# expect: pass
# lower: unsupported (tcgen05.mma with A from TMEM: the lowering emits the shared-memory descriptor form of A only)
@cake.schedule(target="sm_100a")
def sm100_fa4_p_in_tmem_over_s(lm, Q: LM.tma2d, K: LM.tma2d, VT: LM.tma2d, O: LM.gmem, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(114688)
    smem_q  = pool.view(offset=0,     shape=(128, 64), dtype=lm.f16, swizzle="128B")
    smem_k  = pool.view(offset=16384, shape=(128, 64), dtype=lm.f16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=49152, shape=(64, 128), dtype=lm.f16, stages=2)
    s_p     = lm.tmem(cols=0,   width=64, shape=(128, 128), dtype=lm.f16)
    o_acc   = lm.tmem(cols=128, width=64, shape=(128, 64),  dtype=lm.f32)
    s_r     = lm.regs(shape=(128, 128), dtype=lm.f16)
    o_r     = lm.regs(shape=(128, 64),  dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])

    pipe   = lm.pipeline(stages=2)
    full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    q_full = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    s_full = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    p_full = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=1)
    o_full = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)

    m0 = lm.block_idx(0) * 128

    with load:
        smem_q.tma_load(Q, coords=(m0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_kv):
            lm.wait(empty, iter=j - 2)
            smem_k.tma_load(K, coords=(j * 128, 0), iter=j, barrier=full)
            smem_vt.tma_load(VT, coords=(0, j * 128), iter=j, barrier=full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_kv):
            lm.wait(full, iter=j)
            lm.mma(s_p, smem_q[0], smem_k[j], init=True)          # S_j over P_{j-1}: after PV_{j-1} in issue order
            lm.mma_commit(barrier=s_full, iter=j)
            lm.wait(p_full, iter=j)
            lm.mma(o_acc, s_p, smem_vt[j], init=(j == 0))         # O += P_j V_j, P from TMEM
            lm.mma_commit(barrier=empty, iter=j)
        lm.mma_commit(barrier=o_full, stage=0)

    with softmax:
        for j in lm.range(0, n_kv):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_r, s_p)
            lm.tmem_load_wait()
            lm.unary(s_r, s_r, op="exp2")                          # P_j (row max / sum left out)
            lm.tmem_store(s_p, s_r)                                # P_j over S_j
            lm.tmem_store_wait()
            lm.arrive(p_full, iter=j)
        lm.wait(o_full, stage=0)
        lm.tmem_load(o_r, o_acc)
        lm.tmem_load_wait()
        lm.copy(O, o_r, coords=(m0, 0))
