# FIXED form of warp_column_bands_overlap_one_column.cake: two one-warp
# instances each own a 32-column band of one (32, 64) f32 shared tile
# (columns 32 * w .. 32 * w + 31 of every row) and, with no barrier, write
# their band and read it back every iteration. The bands share no byte, so
# there is no race and every read-back finds its own data. (Until session 28
# a read column slice was its bounding byte range, rows 0..31 of columns
# 0..63 for warp 0's band too, and this was a false sync.race /
# data.stale-read: docs/known-limits.md, helper rb7's reproducer.)
# expect: pass
@cake.schedule(target="sm_80")
def warp_column_bands(lm, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool = lm.smem(8192)
    tile = pool.view(offset=0, shape=(32, 64), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(32, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    with warps:
        w = lm.instance()
        for r in lm.range(0, n):
            lm.fill(v, 1.0)
            lm.copy(tile[0][:, 32 * w:32 * w + 32], v)
            lm.copy(v, tile[0][:, 32 * w:32 * w + 32])
            lm.copy(Out, v, coords=(32 * r, 32 * w))
