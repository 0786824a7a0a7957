# FlashAttention-2 backward on Ampere (Dao-AILab/flash-attention
# csrc/flash_attn/src/flash_bwd_kernel.h, compute_dq_dk_dv_1colblock): one
# CTA per (key block of kBlockN = 128 rows, head), head_dim 64, query blocks
# of kBlockM = 64 rows streamed in; 8 warps as two 4-warp halves.
#  * K and V stay resident; Q and dO of query block m are double-buffered
#    with cp.async (Double_buffer: block m + 1 is issued at the top of
#    iteration m, into the slot block m - 1 used), every warp copying its
#    share of the rows (here half i: rows 32i .. 32i + 31 of Q and dO, rows
#    64i .. 64i + 63 of K and V).
#  * S = Q K^T and dP = dO V^T are split by QUERY rows (half i: rows 32i ..),
#    P and dS go to shared memory (sP, sdS) by the same rows; after a
#    __syncthreads the transposed products are split by KEY rows: half i
#    accumulates dV[64i ..] += P^T dO and dK[64i ..] += dS^T Q, reading the
#    P and dS columns of BOTH halves' rows - the cross-warp hand-off - and
#    dQ = dS K for its own query rows (FA2 adds it to dQaccum with
#    atomicAdd; written here as a plain store, the IR has no atomics).
#  * a second __syncthreads ends the iteration: sP, sdS and the Q / dO slot
#    of block m are rewritten by iteration m + 1 (and its prefetch).
#  The copies go through per-half views (smem_kh, smem_qh, ...); the MMAs
#  read the whole tiles through the full views.  P^T and dS^T restricted
#  to half i's key rows are the COLUMN slices [:, 64i : 64i + 64] of sP and
#  sdS (strided bytes of every query row; the transposition itself is a
#  register layout, which the checks do not see); Q^T, dO^T and K^T read
#  whole tiles (second views of the same bytes).
# Bug twin: corpus/bugs/sync.race/flash_attn2_bwd_transposed_read_before_sync.cake.
# lower: unsupported (column slices of sP / sdS starting at 64 * lm.instance() as mma operands: the lowering needs a constant start)
# expect: pass
@cake.schedule(target="sm_80")
def flash_attn2_bwd(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, DO: LM.gmem, DQ: LM.gmem,
                    DK: LM.gmem, DV: LM.gmem, seqlen_q: LM.i32):
    lm.assume(seqlen_q > 0)
    pool    = lm.smem(98304)
    smem_k  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16)
    smem_v  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16)
    smem_q  = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2)
    smem_do = pool.view(offset=49152, shape=(64, 64),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=65536, shape=(64, 128), dtype=lm.bf16)
    smem_ds = pool.view(offset=81920, shape=(64, 128), dtype=lm.bf16)
    smem_kh  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2)  # half i's rows of K
    smem_vh  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=2)
    smem_qh  = pool.view(offset=32768, shape=(32, 64),  dtype=lm.bf16, stages=4)  # slot 2 * (m % 2) + i
    smem_doh = pool.view(offset=49152, shape=(32, 64),  dtype=lm.bf16, stages=4)
    smem_kt  = pool.view(offset=0,     shape=(64, 128), dtype=lm.bf16)            # K^T
    smem_qt  = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2)  # Q^T
    smem_dot = pool.view(offset=49152, shape=(64, 64),  dtype=lm.bf16, stages=2)  # dO^T
    s   = lm.regs(shape=(32, 128), dtype=lm.f32)
    dp  = lm.regs(shape=(32, 128), dtype=lm.f32)
    p   = lm.regs(shape=(32, 128), dtype=lm.bf16)
    ds  = lm.regs(shape=(32, 128), dtype=lm.bf16)
    dq  = lm.regs(shape=(32, 64),  dtype=lm.f32)
    dv  = lm.regs(shape=(64, 64),  dtype=lm.f32)
    dk  = lm.regs(shape=(64, 64),  dtype=lm.f32)

    halves = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    block  = lm.named_barrier(roles=[halves])

    n_m  = lm.cdiv(seqlen_q, 64)
    n0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with halves:
        i = lm.instance()
        smem_kh.cp_async(K, coords=(head, n0 + 64 * i, 0), stage=i)
        smem_vh.cp_async(V, coords=(head, n0 + 64 * i, 0), stage=i)
        smem_qh.cp_async(Q, coords=(head, 32 * i, 0), iter=i)
        smem_doh.cp_async(DO, coords=(head, 32 * i, 0), iter=i)
        lm.cp_async_commit()
        lm.fill(dv, 0.0)
        lm.fill(dk, 0.0)
        for m in lm.range(0, n_m):
            if m + 1 < n_m:
                smem_qh.cp_async(Q, coords=(head, 64 * (m + 1) + 32 * i, 0), iter=2 * (m + 1) + i)
                smem_doh.cp_async(DO, coords=(head, 64 * (m + 1) + 32 * i, 0), iter=2 * (m + 1) + i)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.sync(block)                      # every half's rows of block m (and K, V) landed
            lm.mma(s, smem_q[m][32 * i:32 * i + 32, :], smem_k[0], init=True)
            lm.unary(s, s, op="exp2")           # P = exp(S - LSE)
            lm.copy(p, s)
            lm.copy(smem_p[0][32 * i:32 * i + 32, :], p)
            lm.mma(dp, smem_do[m][32 * i:32 * i + 32, :], smem_v[0], init=True)
            lm.binary(dp, dp, s, op="mul")      # dS = P * (dP - dPsum)
            lm.copy(ds, dp)
            lm.copy(smem_ds[0][32 * i:32 * i + 32, :], ds)
            lm.sync(block)                      # sP, sdS complete
            lm.mma(dv, smem_p[0][:, 64 * i:64 * i + 64], smem_dot[m], init=False)
            lm.mma(dk, smem_ds[0][:, 64 * i:64 * i + 64], smem_qt[m], init=False)
            lm.mma(dq, smem_ds[0][32 * i:32 * i + 32, :], smem_kt[0], init=True)
            lm.copy(DQ, dq, coords=(head, 64 * m + 32 * i, 0))
            lm.sync(block)                      # sP, sdS, slot m % 2 free
        lm.cp_async_wait(pending=0)
        lm.copy(DV, dv, coords=(head, n0 + 64 * i, 0))
        lm.copy(DK, dk, coords=(head, n0 + 64 * i, 0))
