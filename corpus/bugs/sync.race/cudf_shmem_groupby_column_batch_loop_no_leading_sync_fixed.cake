# FIXED form of cudf_shmem_groupby_column_batch_loop_no_leading_sync.cake
# (NVIDIA/cudf PR #17985): single_pass_shmem_aggs_kernel starts each column
# batch with a block.sync(), so every warp has finished
# compute_final_aggregations of the previous batch (its reads of col_start,
# col_end and the column offsets) before thread 0 recomputes them in
# calculate_columns_to_aggregate.
# expect: pass
@cake.schedule(target="sm_80")
def cudf_single_pass_shmem_aggs_fixed(lm, Rows: LM.gmem, Out: LM.gmem, n_batches: LM.i32):
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
            lm.sync(block)                                  # the fix: block.sync() first
            if w == 0:
                lm.copy(cols, Rows, coords=(0, 16 * c))
                lm.copy(meta[c], cols)
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
