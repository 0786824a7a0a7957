# BUG (sync.race): NVIDIA/cudf PR #17985 ("Fix race check failures in shared
# memory groupby", 2025-02-11; replaces PR #17976, resolves
# NVIDIA/spark-rapids issue #11835: wrong Spark query results).
# cpp/src/groupby/hash/compute_shared_memory_aggs.cu,
# single_pass_shmem_aggs_kernel: the output columns are aggregated in
# batches that fit the shared-memory budget.  Per batch:
#     while (col_end < num_cols) {
#       // (BUG) no block.sync() here - the PR adds it
#       if (block.thread_rank() == 0)
#         calculate_columns_to_aggregate(col_start, col_end, ...,
#                                        shmem_agg_res_offsets,
#                                        shmem_agg_mask_offsets, ...);
#       block.sync();
#       initialize_shmem_aggregations(...);   // reads col_start/col_end/offsets
#       block.sync();
#       compute_pre_aggregations(...);        // shared atomics into the batch
#       block.sync();
#       compute_final_aggregations(...);      // reads col_start/col_end/offsets
#     }                                       // and the batch, writes global
# Thread 0 finishes its share of compute_final_aggregations and starts the
# next batch: it rewrites col_start, col_end and the per-column offsets in
# shared memory while a slower warp is still in compute_final_aggregations
# of the previous batch, reading those offsets to find its source columns
# (the reviewer asked whether a sync after compute_final_aggregations is
# the same; the author: the sync is needed before calculate_columns).
# Modelled: 256 threads as four one-warp instances of one role;
# __syncthreads()/block.sync() is a named barrier over them; `meta` is the
# shared col_start/col_end/offsets block (written by warp 0, thread 0);
# `meta[c]` names the batch whose metadata a read means (a one-stage view,
# slot c % 1 = 0: the same bytes every batch; docs/rules/data.stale-read.md
# "A slot read twice per round"); written bare, `meta`, the pair is
# cudf_shmem_groupby_column_batch_loop_no_leading_sync_bare_meta{,_fixed}.cake
# (a false data.stale-read on the fixed form until session 46);
# `agg` is the shared aggregation buffer, one slot per warp's share of
# agg locations (the per-thread agg_location_offset copies); the number of
# column batches is a parameter.  Left out: the shared atomics of the
# pre-aggregation (each warp updates its own slot here) and the data
# dependence of the loop exit on col_end.
# Fix: cudf_shmem_groupby_column_batch_loop_no_leading_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cudf_single_pass_shmem_aggs(lm, Rows: LM.gmem, Out: LM.gmem, n_batches: LM.i32):
    lm.assume(n_batches >= 1)
    pool = lm.smem(1088)
    meta = pool.view(offset=0,  shape=(1, 16), dtype=lm.i32)            # col_start, col_end, offsets
    agg  = pool.view(offset=64, shape=(1, 64), dtype=lm.f32, stages=4)  # shmem_agg_storage
    cols = lm.regs(shape=(1, 16), dtype=lm.i32)
    vals = lm.regs(shape=(1, 64), dtype=lm.f32)
    part = lm.regs(shape=(1, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        for c in lm.range(0, n_batches):
            # BUG: no block.sync() before thread 0 rewrites the batch metadata
            if w == 0:
                lm.copy(cols, Rows, coords=(0, 16 * c))
                lm.copy(meta[c], cols)                      # expect-error: sync.race
            lm.sync(block)
            lm.copy(cols, meta[c])                          # initialize_shmem_aggregations
            lm.fill(agg[w], 0.0)
            lm.sync(block)
            lm.copy(cols, meta[c])                          # compute_pre_aggregations
            lm.copy(vals, Rows, coords=(1 + w, 64 * c))
            lm.copy(part, agg[w])
            lm.binary(part, part, vals, op="add")
            lm.copy(agg[w], part)
            lm.sync(block)
            lm.copy(cols, meta[c])                          # compute_final_aggregations
            lm.copy(part, agg[(w + 1) % 4])
            lm.copy(Out, part, coords=(w, 64 * c))
