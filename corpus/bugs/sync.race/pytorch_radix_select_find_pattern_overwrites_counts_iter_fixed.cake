# SECOND FIXED form of pytorch_radix_select_find_pattern_overwrites_counts.cake
# (pytorch/pytorch PR #177149), with the counts table's slots named by pass
# (cnt[8 * d + 4 * b + w] is slot 4 * b + w of pass d: the indices reach
# the 8 stages, so every access names an iteration).  Warp 0 writes index
# 8 * d + 4 * b twice per pass (its Stage 1 counts, then the Stage 2
# totals over them) and every other warp reads it once, after the second
# barrier: it reads the totals, the second generation of that index.  Cake
# read this as a stale read (meaning generation 0, finding generation 1)
# before iteration-named reads accepted a newer generation of their index
# (docs/corpus.md, helper rb8b, session 20).
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_radix_select_stage3_barrier_iter_fixed(lm, Data: LM.gmem, Out: LM.gmem,
                                                    n_passes: LM.i32):
    lm.assume(n_passes >= 1)
    pool   = lm.smem(1024)
    cnt    = pool.view(offset=0, shape=(1, 4), dtype=lm.i32, stages=8)   # smem[] as counts
    flag   = pool.view(offset=0, shape=(1, 2), dtype=lm.f32)             # (scalar_t*) smem
    counts = lm.regs(shape=(1, 4), dtype=lm.i32)
    other  = lm.regs(shape=(1, 4), dtype=lm.i32)
    found  = lm.regs(shape=(1, 2), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        for d in lm.range(0, n_passes):
            b = d % 2                                    # buffer_index
            lm.copy(counts, Data, coords=(d, 4 * w))     # this warp's counts of the pass
            lm.copy(cnt[8 * d + 4 * b + w], counts)              # Stage 1
            lm.sync(bar)
            if w == 0:                                   # Stage 2
                for ww in lm.range(1, 4):
                    lm.copy(other, cnt[8 * d + 4 * b + ww])
                    lm.binary(counts, counts, other, op="add")
                lm.copy(cnt[8 * d + 4 * b], counts)
            lm.sync(bar)
            lm.copy(counts, cnt[8 * d + 4 * b])                  # Stage 3
            lm.sync(bar)                                 # the fix (PR #177149)
        # found_unique in the last pass: findPatternDataSmem((scalar_t*) smem)
        if w == 0:
            lm.fill(found, 0.0)
            lm.copy(flag[0], found)                      # smem[0] = smem[1] = 0
        lm.sync(bar)
        if w == 1:                                       # the thread holding the value
            lm.copy(found, Data, coords=(n_passes, 0))
            lm.copy(flag[0], found)                      # smem[0] = 1; smem[1] = v
        lm.sync(bar)
        lm.copy(found, flag[0])                          # found = smem[0]; val = smem[1]
        lm.sync(bar)
        lm.copy(Out, found, coords=(0, 2 * w))
