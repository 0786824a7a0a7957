# BUG (sync.race): NVIDIA/cudf PR #17985, as
# cudf_shmem_groupby_column_batch_loop_no_leading_sync.cake (the source's
# comments there), with the batch metadata written bare: `meta`, a
# one-stage view, as the kernel's shared col_start / col_end / offsets are
# one block of shared memory rewritten every batch, not a slot per batch.
# Thread 0 rewrites it for the next batch while a slower warp still reads
# the last batch's in compute_final_aggregations: sync.race.  Session 45
# (helper hunt45b) found this form exiting 1 with data.stale-read only: the
# explicit engine met a false stale read of batch 0's second read of `meta`
# (each read after a barrier counted as a new lap) before the race
# (docs/rules/data.stale-read.md "A slot read several times a batch,
# written bare", session 46).
# Fix: cudf_shmem_groupby_column_batch_loop_no_leading_sync_bare_meta_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_80")
def cudf_single_pass_shmem_aggs_bare_meta(lm, Rows: LM.gmem, Out: LM.gmem, n_batches: LM.i32):
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
                lm.copy(meta, cols)                         # expect-error: sync.race
            lm.sync(block)
            lm.copy(cols, meta)                             # initialize_shmem_aggregations
            lm.fill(agg[w], 0.0)
            lm.sync(block)
            lm.copy(cols, meta)                             # compute_pre_aggregations
            lm.copy(vals, Rows, coords=(1 + w, 64 * c))
            lm.copy(part, agg[w])
            lm.binary(part, part, vals, op="add")
            lm.copy(agg[w], part)
            lm.sync(block)
            lm.copy(cols, meta)                             # compute_final_aggregations
            lm.copy(part, agg[(w + 1) % 4])
            lm.copy(Out, part, coords=(w, 64 * c))
