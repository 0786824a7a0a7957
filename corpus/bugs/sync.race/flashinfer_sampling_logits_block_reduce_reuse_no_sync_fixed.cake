# FIXED form of flashinfer_sampling_logits_block_reduce_reuse_no_sync.cake
# (flashinfer-ai/flashinfer PR #3624): a __syncthreads() after each
# BlockReduce, so the next chunk's warp aggregates are stored only after
# thread 0 has read this chunk's.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a")
def flashinfer_sampling_logits_block_reduce_reuse_no_sync_fixed(lm, Logits: LM.gmem, Output: LM.gmem,
                                                                n_chunks: LM.i32):
    lm.assume(n_chunks > 0)
    pool  = lm.smem(64)
    agg   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=4)
    logit = lm.regs(shape=(1, 32), dtype=lm.f32)
    wmax  = lm.regs(shape=(1, 1), dtype=lm.f32)
    other = lm.regs(shape=(1, 1), dtype=lm.f32)
    best  = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    row = lm.block_idx(0)

    with warps:
        w = lm.instance()
        lm.fill(best, -1.0e30)
        for i in lm.range(0, n_chunks):
            lm.copy(logit, Logits, coords=(row, (4 * i + w) * 32))      # logits_vec.cast_load
            lm.reduce(wmax, logit, op="max", axis=1)                   # WarpReduce
            lm.copy(agg[w], wmax)
            lm.sync(cta)                                               # CTA_SYNC() inside Sum
            if w == 0:
                lm.binary(best, best, wmax, op="max")
                lm.copy(other, agg[1])
                lm.binary(best, best, other, op="max")
                lm.copy(other, agg[2])
                lm.binary(best, best, other, op="max")
                lm.copy(other, agg[3])
                lm.binary(best, best, other, op="max")
            lm.sync(cta)                                               # the fix: __syncthreads() after each BlockReduce
        if w == 0:
            lm.copy(Output, best, coords=(row, 0))                     # output[bx] = max_data.index
