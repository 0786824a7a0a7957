# BUG (data.stale-read): a per-tile table row in shared memory, named by
# its one slot (row[0]), is loaded by a producer warp and read by a
# consumer warp after a barrier on every tile - but the producer loads it
# on its first tile only (`if t == 0:`), from coordinates the tile changes
# (the DeepGEMM B-scale row of sm90_deepgemm_persistent_sfb_stage_indexed,
# loaded by another role).  From tile 1 on the consumer multiplies tile 0's
# row.  Until session 36 this exited 0 (even proved): the read's returns
# outrun the laps written, so it was read as a table written once, and the
# skipped write sat in another role's loop statement, not paired with the
# reader's loop (docs/rules/data.stale-read.md "A write its loop skips").
# Happens for every n >= 2.
# Correct: sm90_table_row_other_role_first_tile_only_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def table_row_other_role(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
    lm.assume(n > 0)
    lm.assume(n <= 4)
    pool = lm.smem(256)
    row  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)
    w    = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    bar  = lm.named_barrier(roles=[prod, cons])
    with prod:
        for t in lm.range(0, n):
            lm.sync(bar)
            if t == 0:
                lm.copy(v, T, coords=(t, 0))
                lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
