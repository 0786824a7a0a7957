# Broken twin of stencil_three_warps_row_update_skipped_once_fixed.cake
# (helper stale52, session 52): warp 2 skips its update of row 0 in round 1
# (`if w != 2 or it != 1:`), so in round 2 the other warps read row 0 as
# round 0 left it, one update behind the round they read for.  Row 0 is
# seeded by warp 0 and updated by warp 2; session 52's rule (a first read
# is no lap of updates computed from the slot after it) lowers what the
# reads mean by the one seed read and must keep this: data.stale-read at
# n = 3 ("ws[0] reads buf[0] bytes [0, 64) meaning lap 1 ..., but it holds
# the data of lap 0").
# expect: data.stale-read
@cake.schedule(target="sm_80")
def stencil_three_warps_row_update_skipped_once(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(6, 8), dtype=lm.f32)
    two  = lm.regs(shape=(2, 8), dtype=lm.f32)
    all6 = lm.regs(shape=(6, 8), dtype=lm.f32)
    one  = lm.regs(shape=(1, 8), dtype=lm.f32)
    ws = lm.role(warps=[0, 1, 2], group=1)
    bar = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(two, X, coords=(2 * w, 0))
        lm.copy(buf[0][2 * w:2 * w + 2, :], two)      # fill rows 2w, 2w+1
        lm.sync(bar)
        for it in lm.range(0, n):
            lm.copy(all6, buf[0])  # expect-error: data.stale-read
            lm.sync(bar)
            lm.reduce(one, all6, op="max", axis=0)          # column max of the six rows
            if w != 2 or it != 1:
                lm.copy(buf[0][2 - w:3 - w, :], one)   # BUG: warp 2 skips round 1
            lm.sync(bar)
        lm.copy(Y, all6, coords=(6 * w, 0))
