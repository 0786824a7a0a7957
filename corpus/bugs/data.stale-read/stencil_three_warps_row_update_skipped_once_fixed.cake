# Fixed form of stencil_three_warps_row_update_skipped_once.cake: a
# three-warp in-place stencil.  Warp w fills rows 2w, 2w+1 of a 6 x 8
# buffer; every round each warp reads the whole buffer, a barrier, warp w
# rewrites row 2 - w with the column maxima of what it read (computed from
# the round's read), a barrier.  Row 0 is seeded by warp 0, updated by
# warp 2 and read by warp 1 too: the seeding warp, the updating warp and a
# reader are three different warps (warp 1's round-0 read finds warp 0's
# fill, its round-1 read warp 2's update of round 0).  The shape of arrayfire's flood-fill
# stencil (arrayfire/arrayfire PR #3535's fixed form,
# corpus/bugs/sync.race/arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed.cake)
# with a row updated by a warp other than its seeder and its reader.  Found
# by helper review51 (session 51) as a false data.stale-read on main
# 193925fb ("ws[1] reads buf[0] bytes [0, 32) meaning lap 1 ..., but it
# holds the data of lap 0 ... (for n=2)", the same with the update copied
# from a register row slice, which does not lower); kept as
# docs/limits/stencil_three_warps_row_updated_by_another.cake until session
# 52 (helper stale52, docs/rules/data.stale-read.md "A row seeded by one
# instance, updated from the slot by another").  Proved.
# expect: pass
@cake.schedule(target="sm_80")
def stencil_three_warps_row_update_skipped_once_fixed(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            lm.copy(all6, buf[0])
            lm.sync(bar)
            lm.reduce(one, all6, op="max", axis=0)          # column max of the six rows
            lm.copy(buf[0][2 - w:3 - w, :], one)       # warp 0 updates row 2, warp 1 row 1, warp 2 row 0
            lm.sync(bar)
        lm.copy(Y, all6, coords=(6 * w, 0))
