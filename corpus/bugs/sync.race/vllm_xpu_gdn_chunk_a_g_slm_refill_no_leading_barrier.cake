# BUG (sync.race): vllm-project/vllm-xpu-kernels PR #411 ("Fix
# shared-local-memory write-after-read race in GDN chunk kernels (NaN at
# >=32K on XE2)", 2026-06-12).  chunk_compute_A_kernel (and
# chunk_compute_wu_kernel) walk the (chunk, v_head) cells of a sequence in
# one work-group; every cell refills the shared-local buffers g_slm (the
# chunk's cumulative gates) and beta_slm with only the barrier *after* the
# fill.  Nothing orders the refill after the previous cell's readers: a
# sub-group that finishes its GEMM early overwrites g_slm while a slower
# sub-group still evaluates exp(g_slm[m_idx] - g_slm[n_idx]) in the
# previous cell's epilogue - mismatched cumulative sums give wrong decay
# factors, and NaN when stale and fresh values are far apart (the
# `num_actual_tokens == 8192` test skips of PR #261).  The fix adds the
# missing barrier before each refill.
# Modelled on sm_80 (a sub-group as a warp, the work-group barrier as a
# named barrier over the four warps): a chunk of 64 tokens, each sub-group
# owns 16 rows of the 64x64 A tile; per cell it loads its 16 gates and
# betas from global memory and stores them into its band of g_slm /
# beta_slm, the work-group synchronizes, the sub-group computes its rows of
# K K^T (a register tile from global memory, standing for the DPAS GEMM),
# reads g_slm at its rows and at every column and beta_slm at its rows, and
# stores its rows of A.  Both cell loops are parameters (n_chunks,
# n_vheads).  Left out: the causal mask inside the tile and the exp itself
# (lm.binary stands for the gating arithmetic).
# Fix: vllm_xpu_gdn_chunk_a_g_slm_refill_no_leading_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def vllm_xpu_gdn_chunk_a_g_slm_refill_no_leading_barrier(lm, G: LM.gmem, Beta: LM.gmem, K: LM.gmem,
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
                # BUG: no barrier before the refill
                lm.copy(g_slm[0][r0:r0 + 16, :], g_mine)                      # expect-error: sync.race
                lm.copy(beta_slm[0][r0:r0 + 16, :], b_mine)                   # expect-error: sync.race
                lm.sync(wg)
                lm.copy(kkt, K, coords=(cell * 64 + r0, 0))                    # this sub-group's rows of K K^T
                lm.copy(g_rows, g_slm[0][r0:r0 + 16, :])                      # expect-error: sync.race
                lm.copy(g_cols, g_slm[0])                                     # expect-error: sync.race
                lm.copy(b_rows, beta_slm[0][r0:r0 + 16, :])                   # expect-error: sync.race
                lm.binary(kkt, kkt, g_rows, op="add")                          # exp(g_m - g_n) * beta_m, folded
                lm.binary(kkt, kkt, b_rows, op="mul")
                lm.copy(A, kkt, coords=(cell * 64 + r0, 0))
