# BUG (sync.race): supranational/sppark issue #24 ("Race condition in
# msm/sort.cuh", 2023-11-16, closed): "There is a race condition between
# lines 267 and 278 ... If a warp with a larger warpid executes line 278
# before the warp with warpid=0 executes line 267, the calculation result
# will be wrong."  msm/sort.cuh, lower_sort (the stored text the issue's
# line numbers point at):
#     count_digits(src += base, len, mask);   // zero, atomicAdd, __syncthreads()
#     uint32_t lane_off = warpid*WARP_SZ*N_SUMS + laneid;
#     for (i = 0; i < N_SUMS; i++) {           // per-warp prefix sums
#         uint32_t off = lane_off + i*WARP_SZ;
#         uint32_t sum = counters[off];        // line 267
#         sum = sum_up(sum); ...
#         prefix_sums[i] = sum;
#     }
#     // carry over most significant prefix sums from each warp
#     if (laneid == WARP_SZ-1)
#         counters[warpid] = prefix_sums[N_SUMS-1];   // line 278
#     __syncthreads();
#     uint32_t carry_sum = laneid ? counters[laneid-1] : 0;
#     __syncthreads();
#     ... counters[lane_off + i*WARP_SZ] = prefix_sums[i] += carry_sum;
# Warp w owns counters[w*256 .. w*256+255] (N_SUMS = 8 at DIGIT_BITS 13),
# so warp 0's words 1..31 are where warps 1..31 park their totals: warp k
# can store counters[k] before warp 0 has loaded it, and warp 0 sums
# another warp's total into its digit counts.  The fix the issue asks for:
# a __syncthreads() between the per-warp prefix sums and the carry-over
# store (sppark_msm_lower_sort_carry_store_over_prefix_reads_fixed.cake).
# Written in CAKE IR: SORT_BLOCKDIM 1024 cut to four one-warp instances
# (the race needs warp 0 and one other), __syncthreads() a named barrier
# over them; counters[] as one slot of 4 x 256 words, warp w's region the
# slice [0:1, 256w:256w+256] and its carry word [0:1, w:w+1]; the carry
# read (counters[laneid-1], 31 lanes) reads the four carry words.
# count_digits' atomics between its two barriers are written as each warp
# filling its own region (which warp bumps which counter has no part in
# the race); sum_up (shuffles) as lm.reduce on registers; the histogram
# store as a global store; scatter (atomicSub) is left out.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def sppark_lower_sort(lm, Src: LM.gmem, Histogram: LM.gmem):
    pool     = lm.smem(4096)
    counters = pool.view(offset=0, shape=(1, 1024), dtype=lm.i32)   # counters[N_COUNTERS]
    digits   = lm.regs(shape=(1, 256), dtype=lm.i32)
    prefix   = lm.regs(shape=(1, 256), dtype=lm.i32)                 # prefix_sums[N_SUMS] x 32 lanes
    total    = lm.regs(shape=(1, 1), dtype=lm.i32)
    carries  = lm.regs(shape=(1, 4), dtype=lm.i32)
    carry    = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w   = lm.instance()                                         # warpid
        blk = lm.block_idx(0)
        # count_digits: zero_counters, atomicAdd per digit, __syncthreads()
        lm.copy(digits, Src, coords=(blk, 256 * w))
        lm.copy(counters[0][0:1, 256 * w:256 * w + 256], digits)
        lm.sync(block)
        # per-warp prefix sums over the warp's own 256 counters
        lm.copy(prefix, counters[0][0:1, 256 * w:256 * w + 256])     # sum = counters[off]            # expect-error: sync.race
        lm.reduce(total, prefix, op="sum", axis=1)                  # sum_up, prefix_sums[N_SUMS-1]
        # BUG: no __syncthreads() before the carry-over store
        lm.copy(counters[0][0:1, w:w + 1], total)                   # counters[warpid] = ...          # expect-error: sync.race
        lm.sync(block)
        lm.copy(carries, counters[0][0:1, 0:4])                     # carry_sum = counters[laneid-1]
        lm.sync(block)
        lm.reduce(carry, carries, op="sum", axis=1)                 # sum_up(carry_sum, 32), shfl
        lm.binary(prefix, prefix, carry, op="add")                  # prefix_sums[i] += carry_sum
        lm.copy(counters[0][0:1, 256 * w:256 * w + 256], prefix)
        lm.copy(Histogram, prefix, coords=(blk, 256 * w))           # histogram[lane_off] = ...
        lm.sync(block)
