# FIX of flashinfer_filtered_topk_histogram_clear_before_reads.cake:
# flashinfer-ai/flashinfer PR #3529 (merged 2026-06-07): a
# __syncthreads() after `topk_remain -= s_histogram[threshold + 1]`, so no
# thread clears s_histogram for the next refinement round before every
# thread has read this round's bins.  Same model as the broken file (the
# histogram named by round: see its header).
# expect: pass
@cake.schedule(target="sm_90a")
def flashinfer_filtered_topk_histogram_sync_after_reads_fixed(lm, Counts: LM.gmem, Remain: LM.gmem, n_rounds: LM.i32):
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
            lm.copy(s_hist[r][:, 64 * w:64 * w + 64], zero)      # if (tx < RADIX + 1) s_histogram[tx] = 0
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
            lm.copy(h, s_hist[r])                                  # topk_remain -= s_histogram[threshold + 1]
            lm.sync(cta)                                           # the fix: __syncthreads() after the decrement
        lm.copy(Remain, thr, coords=(row, w))
