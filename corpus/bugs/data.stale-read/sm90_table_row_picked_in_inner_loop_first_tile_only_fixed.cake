# Fixed form of sm90_table_row_picked_in_inner_loop_first_tile_only.cake:
# the producer stores the tile's row on every tile.  (A row picked by a
# guard that reads no tile - `if t == 0:` inside the j loop around
# constant coordinates - is a lazy table and stays clean.)
# expect: pass
@cake.schedule(target="sm_90a")
def table_row_picked_in_inner_loop_fixed(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
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
            lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
