# BUG (sync.race): flashinfer-ai/flashinfer PR #3624 ("fix(sampling): fix
# shared-memory race and out-of-range token id in SamplingFromLogitsKernel",
# opened 2026-06-12, merged; issue #3470: flaky test_int64_indices_sampling).
# include/flashinfer/sampling.cuh SamplingFromLogitsKernel loops over the
# vocabulary in chunks of BLOCK_THREADS * VEC_SIZE and folds each chunk's
# arg-max into max_data through
#     max_data += BlockReduce<DataAndIndex, BLOCK_THREADS>(temp_storage).Sum(cur_data);
# on ONE CUB TempStorage, with no __syncthreads() between iterations (CUB's
# contract requires one before temp storage is reused).  In the warp-
# reductions BlockReduce, lane 0 of each warp stores its warp's aggregate
# into warp_aggregates[warp_id], CTA_SYNC(), then thread 0 reads the other
# warps' aggregates: a fast warp's store of chunk i + 1 overwrites
# warp_aggregates[w] while thread 0 still reads chunk i's.  Compute-
# sanitizer racecheck reported hundreds of hazards for vocab_size 32000; the
# corrupted arg-max let the kernel return a token id >= vocab_size.  The fix
# adds __syncthreads() after each BlockReduce (and a valid fallback index
# for padding lanes, not modelled).
# Modelled: a 128-thread block (four one-warp instances; CTA_SYNC is a
# named barrier over all four), VEC_SIZE 1, warp_aggregates as four f32
# slots (the DataAndIndex pair as its value), the warp reduction as
# lm.reduce in registers, n_chunks = ceil_div(d, 128).
# Fix: flashinfer_sampling_logits_block_reduce_reuse_no_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def flashinfer_sampling_logits_block_reduce_reuse_no_sync(lm, Logits: LM.gmem, Output: LM.gmem,
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
            lm.copy(agg[w], wmax)                                                       # expect-error: sync.race
            lm.sync(cta)                                               # CTA_SYNC() inside Sum
            if w == 0:
                lm.binary(best, best, wmax, op="max")
                lm.copy(other, agg[1])                                                  # expect-error: sync.race
                lm.binary(best, best, other, op="max")
                lm.copy(other, agg[2])                                                  # expect-error: sync.race
                lm.binary(best, best, other, op="max")
                lm.copy(other, agg[3])                                                  # expect-error: sync.race
                lm.binary(best, best, other, op="max")
            # (BUG) no __syncthreads() before the next chunk reuses temp_storage
        if w == 0:
            lm.copy(Output, best, coords=(row, 0))                     # output[bx] = max_data.index
