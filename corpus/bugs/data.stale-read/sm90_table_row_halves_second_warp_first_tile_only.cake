# BUG (data.stale-read): two producer warps load a per-tile table row
# (DeepGEMM's B-scale row of the tile's N block) into shared memory, one
# half each, and a consumer warp reads the whole row after a barrier on
# every tile - but the second warp's load carries the guard of a row that
# does not change (`if w == 0 or t == 0:`), so from tile 1 on the second
# half still holds tile 0's scales.  Until session 37 this was *proved*
# (exit 0): the first warp's write at the read's tile was taken to cancel
# the skip for the whole read, though it covers only its own half
# (docs/rules/data.stale-read.md "Across roles, and only where the data
# changes").  Happens for every n >= 2.
# Correct: sm90_table_row_halves_second_warp_first_tile_only_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def table_row_halves(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
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
            if w == 0 or t == 0:
                lm.copy(v, T, coords=(t, 16 * w))
                lm.copy(row[0][:, 16 * w:16 * w + 16], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(x, row[0])
            lm.copy(O, x, coords=(t, 0))
