# BUG (sync.race): tile-ai/tilelang issue #2703, fixed by PR #2700
# ("[Bugfix] Emit st.bulk destination as a shared write to fix missing
# barrier", 2026-07-19; the same root cause as issue #2699).  TileOPs'
# NSA mean-pooling forward kernel (tile-ai/TileOPs
# tileops/kernels/attention/deepseek_nsa_mean_pooling_fwd.py, one CTA of
# 128 threads per (dim block, chunk, batch*head)) zeroes its shared chunk
# tile and then fills the rows of the chunk's tokens from global memory:
#     T.clear(x_shared)                                   # [chunk_size, bdim]
#     T.copy(x[i_b, start:end, i_h, d0:d1], x_shared[0:end - start, :])
#     T.copy(x_shared, x_local); T.reduce_sum(x_local, output_local, dim=0)
# (the clear keeps the rows past a short varlen chunk at zero for the
# mean).  On Blackwell TileLang 0.1.12 lowers T.clear of a shared buffer
# to one tl::st_bulk_shared<bytes, 0> store of the whole buffer, and its
# ThreadSync pass did not count that call as a shared-memory write, so no
# __syncthreads() separated the clear from the fill: the zeros of the one
# thread issuing st.bulk can land on rows another warp has already filled
# (non-deterministic, wrong means, reported on sm_120).  The fix records
# the st.bulk destination as a write, and ThreadSync emits the barrier.
# Modelled: the default config (bdim = 128, threads = 128) with
# chunk_size = 64, the four warps as one-warp instances (`group=1`),
# __syncthreads() a named barrier over them; the st.bulk as a generic store
# of a zero fragment by warp 0 (its elected thread), the fill as each warp
# storing 16 of the chunk's rows (only the rows of real tokens: n_tok, at
# most 64), the read-back as each warp reading its 32 columns of every row
# (the reduce_sum over tokens).  Left out: the varlen offsets/indices
# lookup (the token count is the parameter n_tok), the division by it.
# Fix: tileops_nsa_mean_pooling_clear_then_fill_no_barrier_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def tileops_nsa_mean_pooling_clear_then_fill_no_barrier(lm, X: LM.gmem, O: LM.gmem, n_tok: LM.i32):
    lm.assume(n_tok >= 1)
    lm.assume(n_tok <= 64)
    pool     = lm.smem(16384)
    x_shared = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16)   # [chunk_size, bdim]
    zero     = lm.regs(shape=(64, 128), dtype=lm.bf16)
    rows     = lm.regs(shape=(16, 128), dtype=lm.bf16)
    x_local  = lm.regs(shape=(64, 32), dtype=lm.bf16)
    out      = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(zero, 0.0)
            lm.copy(x_shared[0], zero)                                 # expect-error: sync.race
        # BUG: no __syncthreads() here (ThreadSync did not see the st.bulk write)
        if 16 * w < n_tok:
            lm.copy(rows, X, coords=(16 * w, lm.block_idx(0) * 128))
            lm.copy(x_shared[0][16 * w:16 * w + 16, :], rows)          # expect-error: sync.race
        lm.sync(block)
        lm.copy(x_local, x_shared[0][:, 32 * w:32 * w + 32])
        lm.reduce(out, x_local, op="sum", axis=0)
        lm.copy(O, out, coords=(lm.block_idx(1), lm.block_idx(0) * 128 + 32 * w))
