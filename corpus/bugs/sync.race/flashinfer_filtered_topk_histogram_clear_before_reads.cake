# BUG (sync.race): flashinfer-ai/flashinfer PR #3529 ("Fix smem race in
# `FilteredTopK` overflow refinement", merged 2026-06-07), flagged by
# compute-sanitizer racecheck on a tie-heavy input.  include/flashinfer/
# topk.cuh, the overflow refinement loop of FilteredTopK: every round
# reuses the shared radix histogram s_histogram.  Near the end of round r
# every thread reads it to update its remaining count,
#     topk_remain -= static_cast<uint32_t>(s_histogram[threshold + 1]);
# and at the start of round r + 1 the first RADIX + 1 threads clear it,
#     if (tx < RADIX + 1) s_histogram[tx] = 0;
# with no barrier between the two, so a lagging warp can read a bin that a
# faster warp has already zeroed (or counted into again) for the next
# round.  The fix adds __syncthreads() after the topk_remain decrement,
# before the loop breaks or continues.
# Modelled: a CTA of 4 warps, each its own instance (RADIX = 256 bins of
# u32 as i32; warp w clears bins 64w..64w+63, the "tx < RADIX + 1" threads
# spread over the warps); a round: clear, barrier, the histogram pass
# (every warp folds its candidates' counts in: modelled as warp 0 adding
# the block's partial counts, since the IR has no shared atomics), barrier,
# the threshold scan (warp 0 publishes the threshold bin), barrier, and
# every warp reading the histogram around the threshold (which bin depends
# on the data: the whole histogram).  The histogram is named by round
# (s_hist[r] of a one-slot view, the same bytes every round): named by
# stage (s_hist[0]) the fixed form is a false data.stale-read, a known
# limit (docs/known-limits.md "data.stale-read: what a stage-like read
# means is inferred").  Left out: the candidate buffers, the final
# collection of indices, the early break when the count fits.
# Fix: flashinfer_filtered_topk_histogram_clear_before_reads_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def flashinfer_filtered_topk_histogram_clear_before_reads(lm, Counts: LM.gmem, Remain: LM.gmem, n_rounds: LM.i32):
    lm.assume(n_rounds > 0)
    pool   = lm.smem(2048)
    s_hist = pool.view(offset=0,    shape=(1, 256), dtype=lm.i32, stages=1)
    s_thr  = pool.view(offset=1024, shape=(1, 1),   dtype=lm.i32, stages=1)
    zero   = lm.regs(shape=(1, 64),  dtype=lm.i32)
    cnt    = lm.regs(shape=(1, 256), dtype=lm.i32)
    h      = lm.regs(shape=(1, 256), dtype=lm.i32)
    thr    = lm.regs(shape=(1, 1),   dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    row = lm.block_idx(0)

    with warps:
        w = lm.instance()
        lm.fill(zero, 0)
        for r in lm.range(0, n_rounds):
            # if (tx < RADIX + 1) s_histogram[tx] = 0
            lm.copy(s_hist[r][:, 64 * w:64 * w + 64], zero)   # expect-error: sync.race
            lm.sync(cta)
            if w == 0:
                lm.copy(cnt, Counts, coords=(row, 256 * r))
                lm.copy(h, s_hist[r])
                lm.binary(h, h, cnt, op="add")                     # the round's counts (atomicAdd)
                lm.copy(s_hist[r], h)
            lm.sync(cta)
            if w == 0:
                lm.copy(h, s_hist[r])
                lm.reduce(thr, h, op="max", axis=1)                # threshold bin of this round
                lm.copy(s_thr[r], thr)
            lm.sync(cta)
            lm.copy(thr, s_thr[r])
            # topk_remain -= s_histogram[threshold + 1]
            lm.copy(h, s_hist[r])   # expect-error: sync.race
            # BUG: no __syncthreads() before the next round clears s_histogram
        lm.copy(Remain, thr, coords=(row, w))
