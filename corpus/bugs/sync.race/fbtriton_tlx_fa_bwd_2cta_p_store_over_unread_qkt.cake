# BUG (sync.race): facebookexperimental/triton PR #1992 ("[TLX FA BWD] Fix
# intra-task warp race on aliased TMEM in the 2-CTA path", 2026-07-10;
# compiler-side follow-up: issue #1993, "Membar pass does not model TMEM").
# third_party/tlx/tutorials/blackwell_fa_ws_pipelined_persistent.py,
# _attn_bwd_ws, NUM_CTAS=2: the 8-warp compute task reads qkT (f32) out of
# TMEM, forms P = exp2(qkT - lse) and stores P (f16, packed two per 32-bit
# column) back into TMEM columns 64-127 - the upper half of the qk region -
# for the dV MMA.  In the two-CTA layouts the tcgen05.ld and tcgen05.st
# warp -> chunk mappings differ: warps w and w + 4 share a lane quarter and
# load column halves [0, 64) and [64, 128) of qkT, but warp w stores its P
# chunk into columns [64, 96), inside the half that warp w + 4 loads.
# Nothing synchronizes the task's warps between the read and the store, so a
# fast warp's P lands in a 32 x 32 chunk a slow warp has not yet read (~13%
# of runs: dv, dk, dq wrong in 32-row-aligned blocks).  The fix puts a
# barrier over the task's warps between the qkT load and the P store.
# Modelled (one CTA's view; the 2-CTA MMA pairs left out): one KV block per
# CTA, the MMA warp computes qkT_j = K Q_j^T into TMEM and dV += P_j dO_j
# with P from TMEM (the ts form); the compute task is 8 single-warp
# instances, instance i on lanes 32 (i % 4) .. +31, column half i // 4; P is
# written as a 32-column f32 fragment per warp where the kernel packs 64
# f16 values (same columns), and dO as f32 so that the ts MMA's operands
# share one element type.  Left out: lse / delta, dP, dS (whose store to
# columns 0-63 the PR discusses separately), dK, dQ, the second CTA.
# Fix: fbtriton_tlx_fa_bwd_2cta_p_store_over_unread_qkt_fixed.cake.
# expect: sync.race
# may-also: data.discarded-product
# lower: unsupported (tcgen05.mma with A from TMEM: the lowering emits the shared-memory descriptor form of A only)
@cake.schedule(target="sm_100a")
def fbtriton_tlx_fa_bwd_2cta_p_store_over_unread_qkt(lm, K: LM.tma2d, Q: LM.tma2d, dO: LM.tma2d, dV: LM.gmem,
                                                     n_q: LM.i32):
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
            lm.tmem_load(s_r, tmem_qk[q:q + 32, 64 * h:64 * h + 64])     # expect-error: sync.race
            lm.tmem_load_wait()
            lm.unary(p_r, s_r[:, 0:32], op="exp2")                     # P = exp2(qkT - lse)
            # BUG: no barrier over the task's warps: warp i stores into a chunk warp i + 4 still reads
            lm.tmem_store(tmem_qk[q:q + 32, 64 + 32 * h:96 + 32 * h], p_r)  # expect-error: sync.race
            lm.tmem_store_wait()
            lm.arrive(p_full, iter=j)
        lm.wait(dv_full, stage=0)
        lm.tmem_load(dv_r, tmem_dv[q:q + 32, 32 * h:32 * h + 32])
        lm.tmem_load_wait()
        lm.copy(dV, dv_r, coords=(kv0 + q, 32 * h))
