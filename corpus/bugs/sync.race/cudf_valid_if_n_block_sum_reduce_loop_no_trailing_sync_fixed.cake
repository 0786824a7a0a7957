# FIXED: cudf_valid_if_n_block_sum_reduce_loop_no_trailing_sync.cake as
# NVIDIA/cudf PR #13488 fixes it (issue #13485): single_lane_block_sum_reduce
# ends with
#     // Shared memory has block scope, so sync here to ensure no data
#     // races between successive invocations of this function
#     __syncthreads();
#     return result;
# so warp 0 has read every warp's count before any warp stores the next
# mask's count into lane_values[].
# expect: pass
@cake.schedule(target="sm_80")
def cudf_valid_if_n_kernel_fixed(lm, Pred: LM.gmem, Masks: LM.gmem, ValidCounts: LM.gmem,
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
            lm.copy(lanes[0][0:1, w:w + 1], cnt)            # lane_values[warp_id] = lane_value
            lm.sync(block)
            if w == 0:
                lm.copy(allw, lanes[0])                     # lane_values[lane_id]
                lm.reduce(total, allw, op="sum", axis=1)    # WarpReduce.Sum
                lm.copy(ValidCounts, total, coords=(m, blk))   # atomicAdd(valid_counts + mask_idx)
            lm.sync(block)                                  # the fix: __syncthreads() before return
