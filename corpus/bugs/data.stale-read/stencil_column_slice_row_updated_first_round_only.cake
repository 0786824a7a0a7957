# Broken twin of stencil_column_slice_row_updated_first_round_only_fixed.cake
# (helper stale52, session 52): warp 1 rewrites its row of the
# neighbourhood in round 0 only (`if w == 0 or it == 0:`), so from round 2
# on warp 0's column-sliced read finds row 1 as round 0 left it, one update
# behind the round it reads for.  The stale bytes are one run of the
# strided read `buf[0][:, 1:9]` (columns 1..8 of row 1); the runs over row
# 3 (written once) and warp 0's own rows are not stale.  A real stale read
# that the per-run laps of session 52 must keep: data.stale-read at n = 3
# ("ws[0] reads buf[0][:, 1:9] bytes [44, 76) (run 2 of 4) meaning lap 1
# ..., but it holds the data of lap 0").
# expect: data.stale-read
@cake.schedule(target="sm_80")
def stencil_column_slice_row_updated_first_round_only(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            lm.copy(sub, buf[0][:, 1:9])  # expect-error: data.stale-read
            lm.sync(bar)
            lm.reduce(one, sub, op="max", axis=0)           # column max of the four rows
            if w == 0 or it == 0:
                lm.copy(buf[0][2 - w:3 - w, 1:9], one)   # BUG: warp 1 updates row 1 in round 0 only
            lm.sync(bar)
        lm.copy(Y, sub, coords=(4 * w, 0))
