# Broken twin of stencil_three_warps_row_computed_a_round_ahead_fixed.cake
# (helper stale53, session 53): the three-warp stencil of
# stencil_three_warps_row_update_skipped_once_fixed.cake with warp 2's row
# 0 software-pipelined: warp 2 computes each round's row 0 a round ahead
# (from its read of the buffer before the loop, then from the previous
# round's read) yet still writes it after the round's reads.  The data was
# there before those reads, which meant it: from round 1 on warp 1 reads
# the previous round's row 0, the writer one barrier late of llama.cpp's
# kqmax_shared (docs/rules/data.stale-read.md "A writer one barrier late,
# computed from the slot").  Its data is computed from the slot, so session
# 52's rule (a first read is no lap of updates computed from the slot as
# read no earlier than it) took it for an in-place update and the schedule
# was *proved* on main 14196dc7.  Since session 53 an update must be
# computed from the slot as read in the round it answers: data.stale-read
# at n = 2 ("ws[1] reads buf[0] bytes [0, 32) meaning lap 1 ..., but it
# holds the data of lap 0").
# expect: data.stale-read
@cake.schedule(target="sm_80")
def stencil_three_warps_row_computed_a_round_ahead(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
        if w == 2:
            lm.copy(all6, buf[0])
            lm.reduce(one, all6, op="max", axis=0)      # round 0's row 0, computed ahead
        for it in lm.range(0, n):
            lm.copy(all6, buf[0])  # expect-error: data.stale-read
            lm.sync(bar)
            if w != 2:
                lm.reduce(one, all6, op="max", axis=0)  # column max of the six rows
            lm.copy(buf[0][2 - w:3 - w, :], one)       # BUG: warp 2 writes the previous round's maximum after this round's reads
            if w == 2:
                lm.reduce(one, all6, op="max", axis=0)  # the next round's row 0
            lm.sync(bar)
        lm.copy(Y, all6, coords=(6 * w, 0))
