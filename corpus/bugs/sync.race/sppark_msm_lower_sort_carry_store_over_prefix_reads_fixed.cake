# FIXED: sppark_msm_lower_sort_carry_store_over_prefix_reads.cake with the
# barrier supranational/sppark issue #24 asks for: lower_sort synchronizes
# the block after the per-warp prefix sums, before lane 31 of each warp
# parks its total in counters[warpid]:
#         prefix_sums[i] = sum;
#     }
#     __syncthreads();
#     // carry over most significant prefix sums from each warp
#     if (laneid == WARP_SZ-1)
#         counters[warpid] = prefix_sums[N_SUMS-1];
# so warp 0 has loaded its 256 counters before warps 1..31 overwrite
# words 1..31 of them.  (The stored corpora hold no later text of
# msm/sort.cuh; this is the minimal fix the report describes.)
# expect: pass
@cake.schedule(target="sm_80")
def sppark_lower_sort_fixed(lm, Src: LM.gmem, Histogram: LM.gmem):
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
        lm.copy(prefix, counters[0][0:1, 256 * w:256 * w + 256])     # sum = counters[off]
        lm.reduce(total, prefix, op="sum", axis=1)                  # sum_up, prefix_sums[N_SUMS-1]
        lm.sync(block)
        lm.copy(counters[0][0:1, w:w + 1], total)                   # counters[warpid] = ...
        lm.sync(block)
        lm.copy(carries, counters[0][0:1, 0:4])                     # carry_sum = counters[laneid-1]
        lm.sync(block)
        lm.reduce(carry, carries, op="sum", axis=1)                 # sum_up(carry_sum, 32), shfl
        lm.binary(prefix, prefix, carry, op="add")                  # prefix_sums[i] += carry_sum
        lm.copy(counters[0][0:1, 256 * w:256 * w + 256], prefix)
        lm.copy(Histogram, prefix, coords=(blk, 256 * w))           # histogram[lane_off] = ...
        lm.sync(block)
