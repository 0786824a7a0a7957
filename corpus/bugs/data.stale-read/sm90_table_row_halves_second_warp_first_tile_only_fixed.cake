# Fixed form of sm90_table_row_halves_second_warp_first_tile_only.cake:
# both producer warps load their half of the tile's row on every tile.
# expect: pass
@cake.schedule(target="sm_90a")
def table_row_halves_fixed(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
    lm.assume(n > 0)
    lm.assume(n <= 4)
    pool = lm.smem(256)
    row  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(1, 16), dtype=lm.f32)
    x    = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod = lm.role(warps=[0, 1], group=1)
    cons = lm.role(warps=[2])
    bar  = lm.named_barrier(roles=[prod, cons])
    with prod:
        w = lm.instance()
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.copy(v, T, coords=(t, 16 * w))
            lm.copy(row[0][:, 16 * w:16 * w + 16], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(x, row[0])
            lm.copy(O, x, coords=(t, 0))
