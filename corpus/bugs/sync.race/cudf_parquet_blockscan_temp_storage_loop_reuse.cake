# BUG (sync.race): NVIDIA/cudf PR #24249 ("Add missing __syncthreads() around
# reused cub::BlockScan temp storage in Parquet decode_fixed", 2026-09-21).
# cpp/src/io/parquet/decode_fixed.cu: update_validity_and_row_indices_flat
# (and _nested, skip_validity_and_row_indices_nonlist) declare one
#     __shared__ typename block_scan::TempStorage scan_storage;
# and call, once per iteration of the value loop,
#     block_scan(scan_storage).ExclusiveSum(is_valid, thread_value_count,
#                                           block_value_count);
# with no barrier between one iteration's use of the storage and the next.
# cub::BlockScan (BLOCK_SCAN_WARP_SCANS) stores each warp's aggregate in
# temp_storage.warp_aggregates[warp_id], synchronizes, and every thread then
# reads the aggregates (its prefix and the block total); CUB documents that
# a __syncthreads() is required before the storage is reused.  A warp that
# races ahead into iteration i+1 overwrites its aggregate while slower warps
# still read iteration i's: wrong validity counts / row indices.
# Modelled: 128 threads = four one-warp instances, one value per thread per
# iteration, the loop trip count a parameter (n_iters >= 1); the warp scan
# (shuffles) as lm.reduce on registers; warp_aggregates as one 4-int tile,
# warp w's word the slice [0:1, w:w+1]; the CTA_SYNC inside the scan a
# named barrier over the block.  Left out: the nesting-depth loop, the
# definition-level decoding that produces is_valid.
# Fix: cudf_parquet_blockscan_temp_storage_loop_reuse_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cudf_parquet_blockscan_temp_storage_loop_reuse(lm, Valid: LM.gmem, RowIdx: LM.gmem,
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
            lm.copy(aggs[0][0:1, w:w + 1], part)        # warp_aggregates[warp_id]    # expect-error: sync.race
            lm.sync(bar)                                # CTA_SYNC inside ExclusiveSum
            lm.copy(allw, aggs[0])                      # prefix and block aggregate  # expect-error: sync.race
            lm.reduce(total, allw, op="sum", axis=1)    # block_value_count
            lm.copy(RowIdx, total, coords=(i, w))
            # BUG: no __syncthreads() before the next iteration's ExclusiveSum
