# FIXED form of cudf_parquet_blockscan_temp_storage_loop_reuse.cake
# (NVIDIA/cudf PR #24249): a __syncthreads() after each ExclusiveSum, so no
# warp enters the next scan while another still reads the warp aggregates
# of this one.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def cudf_parquet_blockscan_temp_storage_loop_reuse_fixed(lm, Valid: LM.gmem, RowIdx: LM.gmem,
                                                   n_iters: LM.i32):
    lm.assume(n_iters >= 1)
    pool  = lm.smem(256)
    aggs  = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)         # warp_aggregates
    valid = lm.regs(shape=(1, 32), dtype=lm.i32)
    part  = lm.regs(shape=(1, 1), dtype=lm.i32)
    allw  = lm.regs(shape=(1, 4), dtype=lm.i32)
    total = lm.regs(shape=(1, 1), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        for i in lm.range(0, n_iters):
            lm.copy(valid, Valid, coords=(i, 32 * w))   # is_valid of this thread's value
            lm.reduce(part, valid, op="sum", axis=1)    # WarpScan: the warp aggregate
            lm.copy(aggs[0][0:1, w:w + 1], part)        # warp_aggregates[warp_id]
            lm.sync(bar)                                # CTA_SYNC inside ExclusiveSum
            lm.copy(allw, aggs[0])                      # prefix and block aggregate
            lm.reduce(total, allw, op="sum", axis=1)    # block_value_count
            lm.copy(RowIdx, total, coords=(i, w))
            lm.sync(bar)                                # the fix
