# BUG (data.stale-read): a producer warp walks the table's rows in an
# inner loop and keeps the tile's (`for j in lm.range(0, 4): if j == t:
# lm.copy(v, T, coords=(j, 0))`) in registers, and stores it in shared
# memory for the consumer warp, which reads it after a barrier on every
# tile - but the store sits under `if t == 0:`.  From tile 1 on the
# consumer reads row 0 where row t is meant.  The load's coordinates read
# j only: the data changes per tile through the guard that picks j (and
# would through bounds that read t, `lm.range(t, t + 1)`).  Until session
# 38 this was *proved* (exit 0): the builder's data trace took the
# fragment to hold one value at every tile, since no expression of its
# one write reads t (docs/rules/data.stale-read.md "Data picked by an
# inner loop").  Happens for every n >= 2.
# Correct: sm90_table_row_picked_in_inner_loop_first_tile_only_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def table_row_picked_in_inner_loop(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
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
            for j in lm.range(0, 4):
                if j == t:
                    lm.copy(v, T, coords=(j, 0))
            if t == 0:
                lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
