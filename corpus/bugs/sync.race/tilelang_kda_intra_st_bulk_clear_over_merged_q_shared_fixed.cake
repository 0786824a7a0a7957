# FIXED form of tilelang_kda_intra_st_bulk_clear_over_merged_q_shared.cake
# (tile-ai/tilelang issue #2699, PR #2700): with the st.bulk destination
# recorded as a shared write, ThreadSync puts a __syncthreads() between
# the last read of Q_i_shared and the clear of the sum buffer merged over
# its bytes.
# expect: pass
@cake.schedule(target="sm_100a")
def tilelang_kda_intra_st_bulk_clear_over_merged_q_shared_fixed(lm, Q: LM.gmem, K: LM.gmem, Aqk: LM.gmem, loops: LM.i32):
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
        lm.copy(q_frag, q_shared[0][:, 32 * w:32 * w + 32])
        lm.sync(block)                                                  # the fix (PR #2700)
        if w == 0:
            lm.fill(zero, 0.0)
            lm.copy(sum_aqk[0], zero)
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
