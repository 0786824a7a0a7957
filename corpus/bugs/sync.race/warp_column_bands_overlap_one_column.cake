# Two one-warp instances keep column bands of one (32, 64) f32 shared tile
# with no barrier between them, but the bands overlap by one column: warp 1's
# band starts at column 31 (31 * w), the last column of warp 0's. Both warps
# write column 31 of every row, unordered: a race (and a read-back that may
# find the other warp's data). The fixed form
# (warp_column_bands_overlap_one_column_fixed.cake) starts the band at 32 * w.
# expect: sync.race
@cake.schedule(target="sm_80")
def warp_column_bands_overlap(lm, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool = lm.smem(8192)
    tile = pool.view(offset=0, shape=(32, 64), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(32, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    with warps:
        w = lm.instance()
        for r in lm.range(0, n):
            lm.fill(v, 1.0)
            lm.copy(tile[0][:, 31 * w:31 * w + 32], v)
            lm.copy(v, tile[0][:, 31 * w:31 * w + 32])
            lm.copy(Out, v, coords=(32 * r, 32 * w))
