# FIXED form of tileops_nsa_mean_pooling_clear_then_fill_no_barrier.cake
# (tile-ai/tilelang issue #2703, PR #2700): with the st.bulk destination
# recorded as a shared write, ThreadSync puts a __syncthreads() between
# T.clear(x_shared) and the fill, so every warp stores its token rows after
# the zeros have landed.
# expect: pass
@cake.schedule(target="sm_100a")
def tileops_nsa_mean_pooling_clear_then_fill_barrier_fixed(lm, X: LM.gmem, O: LM.gmem, n_tok: LM.i32):
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
            lm.copy(x_shared[0], zero)
        lm.sync(block)                                                 # the fix (PR #2700)
        if 16 * w < n_tok:
            lm.copy(rows, X, coords=(16 * w, lm.block_idx(0) * 128))
            lm.copy(x_shared[0][16 * w:16 * w + 16, :], rows)
        lm.sync(block)
        lm.copy(x_local, x_shared[0][:, 32 * w:32 * w + 32])
        lm.reduce(out, x_local, op="sum", axis=0)
        lm.copy(O, out, coords=(lm.block_idx(1), lm.block_idx(0) * 128 + 32 * w))
