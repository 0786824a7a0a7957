# Fixed form of stencil_column_slice_update_skipped_in_last_two_rounds.cake
# (helper attack53, session 53): the updates are left out of the last round
# only (`if it + 1 < n:`). The last round's update is read by no one (the
# loop ends and the buffer is not read again), so the kernel reads exactly
# what the stencil reads. A false data.stale-read at n = 3 on main 14196dc7
# and before (docs/known-limits.md "data.stale-read: a stencil whose last
# round skips its update", attack52's docs/limits/stencil_last_round_update_skipped.cake):
# the loop-skip rule (docs/rules/data.stale-read.md "A write its loop
# skips") took the last round's missing write for a skip of the data the
# round's read means, though the body writes after it reads, so that read
# means the round before's write. Proved.
# expect: pass
@cake.schedule(target="sm_80")
def stencil_column_slice_update_skipped_in_last_two_rounds_fixed(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            if it + 1 < n:  # the last round's update: read by no one
                lm.copy(buf[0][2 - w:3 - w, 1:9], one)
            lm.sync(bar)
        lm.copy(Y, sub, coords=(4 * w, 0))
