# FIX of flashinfer_filtered_topk_histogram_clear_before_reads.cake
# (flashinfer-ai/flashinfer PR #3529), the histogram and the threshold
# named as the source names them: s_histogram[0] (one slot), not by round
# (flashinfer_filtered_topk_histogram_clear_before_reads_fixed.cake, which
# explains the kernel).  Warp 0 rewrites the whole histogram once a round
# (the counts), reads it back and reads it again at the end of the round;
# the other warps only clear their quarters once a round.  The read-back
# finds warp 0's own data and is no lap of the others', the end-of-round
# read is a re-read of it, so warp 0's next round means their next clear
# (docs/rules/data.stale-read.md "Returns are counted per byte"; a false
# data.stale-read before, at n_rounds = 3).
# Bug twin: flashinfer_filtered_topk_histogram_stage_indexed_clear_before_reads.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def flashinfer_filtered_topk_histogram_stage_indexed_fixed(lm, Counts: LM.gmem, Remain: LM.gmem, n_rounds: LM.i32):
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
            lm.copy(s_hist[0][:, 64 * w:64 * w + 64], zero)      # if (tx < RADIX + 1) s_histogram[tx] = 0
            lm.sync(cta)
            if w == 0:
                lm.copy(cnt, Counts, coords=(row, 256 * r))
                lm.copy(h, s_hist[0])
                lm.binary(h, h, cnt, op="add")                     # the round's counts (atomicAdd)
                lm.copy(s_hist[0], h)
            lm.sync(cta)
            if w == 0:
                lm.copy(h, s_hist[0])
                lm.reduce(thr, h, op="max", axis=1)                # threshold bin of this round
                lm.copy(s_thr[0], thr)
            lm.sync(cta)
            lm.copy(thr, s_thr[0])
            lm.copy(h, s_hist[0])                                  # topk_remain -= s_histogram[threshold + 1]
            lm.sync(cta)                                           # the fix: __syncthreads() after the decrement
        lm.copy(Remain, thr, coords=(row, w))
