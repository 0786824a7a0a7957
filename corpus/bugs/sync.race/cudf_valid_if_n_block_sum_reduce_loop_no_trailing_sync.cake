# BUG (sync.race): NVIDIA/cudf issue #13485 ("`single_lane_block_sum_reduce`
# is not data-race safe if called in a loop"), fixed by PR #13488 ("Ensure
# `single_lane_block_sum_reduce` is safe to call in a loop", merged).
# cpp/include/cudf/detail/utilities/cuda.cuh:
#     __shared__ T lane_values[warp_size];
#     if (lane_id == leader_lane) lane_values[warp_id] = lane_value;
#     __syncthreads();
#     T result{0};
#     if (warp_id == 0) {
#       lane_value = (lane_id < warps_per_block) ? lane_values[lane_id] : T{0};
#       result = cub::WarpReduce<T>(temp).Sum(lane_value);
#     }
#     return result;                      // no barrier
# and cpp/include/cudf/detail/valid_if.cuh, valid_if_n_kernel, calls it once
# per mask:
#     for (mask_idx = 0; mask_idx < mask_count; mask_idx++) {
#       ... warp_validity = __ballot_sync(...); lane 0 stores the mask word;
#       warp_valid_count += __popc(warp_validity); ...
#       auto block_valid_count = single_lane_block_sum_reduce<block_size, 0>(warp_valid_count);
#       if (threadIdx.x == 0) atomicAdd(valid_counts + mask_idx, block_valid_count);
#     }
# "additional synchronisation is required to ensure the read ... in
# iteration i happens-before the write ... on iteration i+1"; the ballots
# synchronize only warps.  A warp that reaches the next mask stores its
# count into lane_values[w] while warp 0 may still read the previous
# mask's count there, so the block adds a wrong count.  The fix: a
# __syncthreads() at the end of single_lane_block_sum_reduce ("Shared
# memory has block scope, so sync here").
# Written in CAKE IR: block_size 128 (the kernel uses 256) = four one-warp
# instances, __syncthreads() a named barrier over them; one grid-stride
# step per mask (the while loop over the mask's bits runs alike); the
# warp's 32 validity bits as a 32-wide i32 fragment, the ballot and popc
# as lm.reduce; lane_values[] as one 4-word slot (warp w's word the slice
# [0:1, w:w+1]); the cub WarpReduce as lm.reduce.  thread 0's atomicAdd
# into valid_counts[mask_idx] (global, over all blocks) is written as a
# per-block store (the IR has no atomics; the sum over blocks has no part
# in the block's synchronization).
# Fix: cudf_valid_if_n_block_sum_reduce_loop_no_trailing_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cudf_valid_if_n_kernel(lm, Pred: LM.gmem, Masks: LM.gmem, ValidCounts: LM.gmem,
                           mask_count: LM.i32):
    lm.assume(mask_count >= 1)
    pool  = lm.smem(16)
    lanes = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)       # lane_values[warp_size]
    bits  = lm.regs(shape=(1, 32), dtype=lm.i32)                  # bit_is_valid of 32 lanes
    word  = lm.regs(shape=(1, 1), dtype=lm.i32)                   # warp_validity
    cnt   = lm.regs(shape=(1, 1), dtype=lm.i32)                   # warp_valid_count
    allw  = lm.regs(shape=(1, 4), dtype=lm.i32)
    total = lm.regs(shape=(1, 1), dtype=lm.i32)                   # block_valid_count

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w   = lm.instance()                                 # warp_id
        blk = lm.block_idx(0)
        for m in lm.range(0, mask_count):                   # mask_idx
            lm.copy(bits, Pred, coords=(m, 128 * blk + 32 * w))
            lm.reduce(word, bits, op="max", axis=1)         # __ballot_sync
            lm.copy(Masks, word, coords=(m, 4 * blk + w))   # lane 0: mask[word_index] = ...
            lm.reduce(cnt, bits, op="sum", axis=1)          # __popc
            # single_lane_block_sum_reduce
            lm.copy(lanes[0][0:1, w:w + 1], cnt)            # lane_values[warp_id] = lane_value  # expect-error: sync.race
            lm.sync(block)
            if w == 0:
                lm.copy(allw, lanes[0])                     # lane_values[lane_id]              # expect-error: sync.race
                lm.reduce(total, allw, op="sum", axis=1)    # WarpReduce.Sum
                lm.copy(ValidCounts, total, coords=(m, blk))   # atomicAdd(valid_counts + mask_idx)
            # BUG: return without __syncthreads()
