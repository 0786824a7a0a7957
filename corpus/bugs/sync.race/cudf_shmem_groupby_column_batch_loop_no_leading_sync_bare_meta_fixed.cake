# FIXED form of cudf_shmem_groupby_column_batch_loop_no_leading_sync_bare_meta.cake
# (NVIDIA/cudf PR #17985): a block.sync() starts each column batch, so every
# warp has finished the last batch's reads of the metadata before thread 0
# rewrites it.  Every warp reads `meta` (bare: one block of shared memory,
# rewritten once a batch by warp 0) after each of the batch's three
# barriers: the second and third reads of a batch find the batch's data
# again, with no write between them in barrier order.  Until session 46 a
# false data.stale-read ("warps[1] reads meta[0] ... meaning lap 1 ..., but
# it holds the data of lap 0", n_batches=2): the bare view was keyed on no
# loop, so each read after a barrier was a new lap
# (docs/rules/data.stale-read.md "A slot read several times a batch,
# written bare").
# expect: pass
@cake.schedule(target="sm_80")
def cudf_single_pass_shmem_aggs_bare_meta_fixed(lm, Rows: LM.gmem, Out: LM.gmem, n_batches: LM.i32):
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
                lm.copy(meta, cols)
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
