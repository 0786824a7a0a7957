# Fixed form of sm90_table_row_other_role_first_tile_only.cake: the
# producer warp loads tile t's row on every tile, between the two barriers
# (the first orders the write after the consumer's read of the previous
# tile, the second publishes it).  A table that does not change - loaded
# from the same coordinates every tile - may also be loaded on the first
# tile only (`if t == 0:` around `coords=(0, 0)`): the rewrite it skips
# would write the same data, and that form is clean too
# (tests/encoder/sound36_attacks_test.cpp).
# expect: pass
@cake.schedule(target="sm_90a")
def table_row_other_role_fixed(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
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
            lm.copy(v, T, coords=(t, 0))
            lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
