# Fixed form of sm90_table_row_by_tile_parity_first_tile_only.cake: the
# producer stores the tile's row on every tile.
# expect: pass
@cake.schedule(target="sm_90a")
def table_row_by_tile_parity_fixed(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
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
            lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
