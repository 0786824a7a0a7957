# FIXED: vllm_xpu_gdn_chunk_a_g_slm_refill_no_leading_barrier.cake with
# the barrier vllm-project/vllm-xpu-kernels PR #411 adds before each
# refill of g_slm / beta_slm: every sub-group has finished the previous
# (chunk, v_head) cell's epilogue reads before any sub-group stores the
# next cell's gates and betas.
# expect: pass
@cake.schedule(target="sm_80")
def vllm_xpu_gdn_chunk_a_g_slm_refill_no_leading_barrier_fixed(lm, G: LM.gmem, Beta: LM.gmem, K: LM.gmem,
                                                         A: LM.gmem, n_chunks: LM.i32, n_vheads: LM.i32):
    lm.assume(n_chunks >= 1)
    lm.assume(n_vheads >= 1)
    pool     = lm.smem(512)
    g_slm    = pool.view(offset=0,   shape=(64, 1), dtype=lm.f32)
    beta_slm = pool.view(offset=256, shape=(64, 1), dtype=lm.f32)
    g_mine   = lm.regs(shape=(16, 1),  dtype=lm.f32)
    b_mine   = lm.regs(shape=(16, 1),  dtype=lm.f32)
    g_rows   = lm.regs(shape=(16, 1),  dtype=lm.f32)
    g_cols   = lm.regs(shape=(64, 1),  dtype=lm.f32)
    b_rows   = lm.regs(shape=(16, 1),  dtype=lm.f32)
    kkt      = lm.regs(shape=(16, 64), dtype=lm.f32)

    sg  = lm.role(warps=[0, 1, 2, 3], group=1)
    wg  = lm.named_barrier(roles=[sg])

    with sg:
        r0 = 16 * lm.instance()
        for c in lm.range(0, n_chunks):
            for h in lm.range(0, n_vheads):
                cell = c * n_vheads + h
                lm.copy(g_mine, G, coords=(cell * 64 + r0, 0))
                lm.copy(b_mine, Beta, coords=(cell * 64 + r0, 0))
                lm.sync(wg)                                                    # the fix: readers of the last cell are done
                lm.copy(g_slm[0][r0:r0 + 16, :], g_mine)
                lm.copy(beta_slm[0][r0:r0 + 16, :], b_mine)
                lm.sync(wg)
                lm.copy(kkt, K, coords=(cell * 64 + r0, 0))                    # this sub-group's rows of K K^T
                lm.copy(g_rows, g_slm[0][r0:r0 + 16, :])
                lm.copy(g_cols, g_slm[0])
                lm.copy(b_rows, beta_slm[0][r0:r0 + 16, :])
                lm.binary(kkt, kkt, g_rows, op="add")                          # exp(g_m - g_n) * beta_m, folded
                lm.binary(kkt, kkt, b_rows, op="mul")
                lm.copy(A, kkt, coords=(cell * 64 + r0, 0))
