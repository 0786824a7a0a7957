# BUG (sync.race): tile-ai/tilelang issue #2699, fixed by PR #2700
# ("[Bugfix] Emit st.bulk destination as a shared write to fix missing
# barrier", 2026-07-19).  TileLang's KDA example
# examples/kda/chunk_intra_token_parallel.py (one CTA per (token, head
# block)) reads its Q row out of shared memory into a fragment for good,
# then zeroes the two row-sum buffers it accumulates into:
#     for i_h, i_k in T.Parallel(block_H, DK):
#         Q_i_fragment[i_h, i_k] = Q_i_shared[i_h, i_k]   # last read of Q_i_shared
#     T.clear(Sum_Akk_shared); T.clear(Sum_Aqk_shared)
#     for d in T.Pipelined(loops): ... T.copy(Sum_Aqk_fragment, Sum_Aqk_shared[:, j % CS]) ...
#     T.copy(Sum_Aqk_shared, Aqk[...])
# MergeSharedMemoryAllocations gives the sum buffers the bytes of the
# shared tiles that are dead by then, Q_i_shared among them, and on
# Blackwell T.clear is one tl::st_bulk_shared store of the whole buffer,
# which TileLang 0.1.12's ThreadSync did not count as a shared write: no
# __syncthreads() between the last read of Q_i_shared and the clear over
# its bytes, so a lagging warp read zeros (or half-written sums) into its
# Q fragment (non-deterministic Aqk on sm_120).  The fix records the
# st.bulk destination as a write; ThreadSync then puts the barrier there.
# Modelled: block_H = 1, DK = 128, CS = 64, threads = 128 (one of the
# autotuner's configs) as four one-warp instances, __syncthreads() a
# named barrier over them; Q_i_shared and the 64-entry bf16 Sum_Aqk_shared
# as two views at the same pool offset (where the pass places each merged
# buffer is not in the issue: here Sum_Aqk_shared over the first 128 bytes
# of Q_i_shared), the st.bulk a generic store of a zero fragment by warp 0
# (its elected thread), thread t reading Q element t (warp w: elements
# 32w..32w+31).  In the loop, the one thread of the reduction writes one
# column of Sum_Aqk_shared per token (warp 0), then every warp reads the
# row for the global store after a barrier.  Left out: K, GK, Beta and
# Sum_Akk (the same pattern), the Aqk/Akk computation (registers).
# Fix: tilelang_kda_intra_st_bulk_clear_over_merged_q_shared_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def tilelang_kda_intra_st_bulk_clear_over_merged_q_shared(lm, Q: LM.gmem, K: LM.gmem, Aqk: LM.gmem, loops: LM.i32):
    lm.assume(loops >= 1)
    lm.assume(loops <= 64)
    pool     = lm.smem(1024)
    q_shared = pool.view(offset=0, shape=(1, 128), dtype=lm.bf16)     # Q_i_shared [block_H, DK]
    sum_aqk  = pool.view(offset=0, shape=(1, 64), dtype=lm.bf16)      # Sum_Aqk_shared [block_H, CS], merged over it
    q_g      = lm.regs(shape=(1, 128), dtype=lm.bf16)
    q_frag   = lm.regs(shape=(1, 32), dtype=lm.bf16)
    zero     = lm.regs(shape=(1, 64), dtype=lm.bf16)
    k_j      = lm.regs(shape=(1, 32), dtype=lm.bf16)
    aqk      = lm.regs(shape=(1, 32), dtype=lm.f32)
    s_aqk    = lm.regs(shape=(1, 1), dtype=lm.f32)
    row      = lm.regs(shape=(1, 16), dtype=lm.bf16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        if w == 0:
            lm.copy(q_g, Q, coords=(lm.block_idx(0), 0))
            lm.copy(q_shared[0], q_g)                                   # T.copy(Q[...], Q_i_shared)
        lm.sync(block)
        lm.copy(q_frag, q_shared[0][:, 32 * w:32 * w + 32])             # expect-error: sync.race
        # BUG: no __syncthreads() here (ThreadSync did not see the st.bulk write)
        if w == 0:
            lm.fill(zero, 0.0)
            lm.copy(sum_aqk[0], zero)                                   # expect-error: sync.race
        for d in lm.range(0, loops):
            lm.copy(k_j, K, coords=(d, 32 * w))
            lm.binary(aqk, q_frag, k_j, op="mul")                       # Q_i_fragment * K_j_fragment
            lm.sync(block)                                              # the reduce_sum's barriers
            if w == 0:
                lm.reduce(s_aqk, aqk, op="sum", axis=1)
                lm.copy(sum_aqk[0][:, d:d + 1], s_aqk)                  # Sum_Aqk_shared[:, j % CS]
            lm.sync(block)
        lm.copy(row, sum_aqk[0][:, 16 * w:16 * w + 16])
        lm.copy(Aqk, row, coords=(lm.block_idx(0), 16 * w))
