# Fixed form of stencil_column_slice_row_updated_first_round_only.cake: a
# two-warp in-place stencil whose neighbourhood read is a column slice.
# Warp w fills rows 2w, 2w+1 of a 4 x 10 buffer; every round each warp
# reads columns 1..8 of all four rows (`buf[0][:, 1:9]`, a strided read of
# four runs), a barrier, warp 0 rewrites columns 1..8 of row 2 and warp 1
# those of row 1 with the column maxima of what it read, a barrier.  Row 3
# is written once (warp 1's fill), rows 1 and 2 every round.  The shape of
# arrayfire's flood-fill 3 x 3 neighbourhood (arrayfire/arrayfire PR
# #3535's fixed form,
# corpus/bugs/sync.race/arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed.cake)
# read as column slices instead of whole rows.  Found by helper hunt51
# (session 51) as a false data.stale-read on main 9dd8ae0 ("ws[0] reads
# buf[0][:, 1:9] bytes [124, 156) (run 4 of 4) meaning lap 1 ... but it
# holds the data of lap 0 ... (for n=3)": the strided read was given one
# lap for all its runs; the same with the update copied from a register
# row slice, which does not lower); kept as
# docs/limits/stencil_column_slice_read.cake until session 52 (helper
# stale52, docs/rules/data.stale-read.md "A column slice over rows written
# different numbers of times").  Proved.
# expect: pass
@cake.schedule(target="sm_80")
def stencil_column_slice_row_updated_first_round_only_fixed(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(4, 10), dtype=lm.f32)
    two  = lm.regs(shape=(2, 10), dtype=lm.f32)
    one  = lm.regs(shape=(1, 8), dtype=lm.f32)
    sub  = lm.regs(shape=(4, 8), dtype=lm.f32)
    ws = lm.role(warps=[0, 1], group=1)
    bar = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(two, X, coords=(2 * w, 0))
        lm.copy(buf[0][2 * w:2 * w + 2, :], two)      # fill rows 2w, 2w+1
        lm.sync(bar)
        for it in lm.range(0, n):
            lm.copy(sub, buf[0][:, 1:9])
            lm.sync(bar)
            lm.reduce(one, sub, op="max", axis=0)           # column max of the four rows
            lm.copy(buf[0][2 - w:3 - w, 1:9], one)       # warp 0 updates row 2, warp 1 row 1
            lm.sync(bar)
        lm.copy(Y, sub, coords=(4 * w, 0))
