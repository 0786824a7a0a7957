# BUG (data.stale-read): a producer warp loads one of two tables per tile
# (the tile's parity picks the row: `if t % 2 == 0: ... coords=(0, 0) else:
# ... coords=(1, 0)`, as a kernel alternating two heads or mask kinds
# would) into registers and stores it in shared memory for the consumer
# warp, which reads it after a barrier on every tile - but the store sits
# under `if t == 0:`.  From tile 1 on the consumer reads row 0 where row 1
# is meant.  Both loads read constant coordinates: the data changes per
# tile through the guard that picks the load.  Until session 37 this was
# *proved* (exit 0): the builder's data trace followed only the
# expressions of the loads, not which one ran, and read the skipped store
# as a lazy table's (docs/rules/data.stale-read.md "Across roles, and only
# where the data changes").  Happens for every n >= 2.
# Correct: sm90_table_row_by_tile_parity_first_tile_only_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def table_row_by_tile_parity(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
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
            if t % 2 == 0:
                lm.copy(v, T, coords=(0, 0))
            else:
                lm.copy(v, T, coords=(1, 0))
            if t == 0:
                lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
