# BUG (sync.race): pytorch/pytorch PR #177149 ("[ROCm] fix radixselect",
# 2026-03-11), a race introduced by PR #174837 ("[ROCm] Optimize
# RadixSelect synchronization overhead"); the fix was later moved by PR
# #178188.  radixSelect (aten/src/ATen/native/cuda/SortingRadixSelect.cuh,
# used by topk, kthvalue and median) uncovers the k-th value two bits per
# pass.  #174837 aggregates each pass's radix counts across warps in
# countRadixAggregateCounts with two __syncthreads() and a double-buffered
# smem table (buffer_index toggles every pass, so consecutive passes use
# different halves and need no third barrier):
#   Stage 1: lane 0 of each warp stores its RadixSize counts at
#            smem[buffer_offset + warp_id * RadixSize + i];  __syncthreads();
#   Stage 2: warp 0 sums the table, smem[buffer_offset + lane] = sum;
#            __syncthreads();
#   Stage 3: every thread reads counts[i] = smem[buffer_offset + i];
# and returns with no barrier.  When a pass finds the unique bucket
# (found_unique), radixSelect calls findPatternDataSmem((scalar_t*) smem),
# whose first statement zeroes smem[0] and smem[1] (the found flag and
# value) - the same bytes as the first counts of buffer 0.  Warp 0 gets
# there while a lagging warp is still in Stage 3 reading
# smem[buffer_offset + i] with buffer_offset == 0: it reads a zeroed count
# (HSA_STATUS_ERROR_EXCEPTION under load).  The fix puts a __syncthreads()
# at the end of Stage 3 (#178188 moves it to the start of
# findPatternDataSmem, which every thread reaches together).
# Modelled: a block of 4 warps (one-warp instances), __syncthreads() a
# named barrier over them; the counts table as 8 slots of RadixSize = 4
# i32 (slot 4 * buffer + warp; the totals land on slot 4 * buffer, warp 0's
# own Stage 1 slot, as in the source); the found flag and value
# (smem[0..1] cast to scalar_t = float) as a second view at offset 0 that
# aliases slot 0; n_passes radix passes with buffer = pass % 2, the pass
# that finds the unique bucket being the last; findPatternLoop as one round
# in which warp 1 holds the matching value.  Left out: the per-warp
# counting (ballots, registers only), the smem data cache.
# Fix: pytorch_radix_select_find_pattern_overwrites_counts_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def pytorch_radix_select_find_pattern_overwrites_counts(lm, Data: LM.gmem, Out: LM.gmem,
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
            lm.copy(cnt[4 * b + w], counts)              # Stage 1
            lm.sync(bar)
            if w == 0:                                   # Stage 2
                for ww in lm.range(1, 4):
                    lm.copy(other, cnt[4 * b + ww])
                    lm.binary(counts, counts, other, op="add")
                lm.copy(cnt[4 * b], counts)
            lm.sync(bar)
            # Stage 3
            lm.copy(counts, cnt[4 * b])                                       # expect-error: sync.race
            # BUG: no __syncthreads() after Stage 3
        # found_unique in the last pass: findPatternDataSmem((scalar_t*) smem)
        if w == 0:
            lm.fill(found, 0.0)                          # smem[0] = smem[1] = 0
            lm.copy(flag[0], found)                                           # expect-error: sync.race
        lm.sync(bar)
        if w == 1:                                       # the thread holding the value
            lm.copy(found, Data, coords=(n_passes, 0))
            lm.copy(flag[0], found)                      # smem[0] = 1; smem[1] = v
        lm.sync(bar)
        lm.copy(found, flag[0])                          # found = smem[0]; val = smem[1]
        lm.sync(bar)
        lm.copy(Out, found, coords=(0, 2 * w))
