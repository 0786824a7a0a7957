# Broken twin of stencil_column_slice_update_skipped_in_last_two_rounds_fixed.cake
# (helper attack53, session 53): the column-sliced two-warp stencil of
# stencil_column_slice_row_updated_first_round_only_fixed.cake with both
# warps' updates left out of the last *two* rounds (`if it + 2 < n:`). The
# update of round n - 2 is the data round n - 1 reads (the body writes
# after it reads), so that round reads rows 1 and 2 as round n - 3 left
# them: data.stale-read at n = 3 ("ws[0] reads buf[0][:, 1:9] ... meaning
# lap 1 ..., but it holds the data of lap 0").
# expect: data.stale-read
@cake.schedule(target="sm_80")
def stencil_column_slice_update_skipped_in_last_two_rounds(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            if it + 2 < n:  # BUG: round n - 2's update is read in round n - 1
                lm.copy(buf[0][2 - w:3 - w, 1:9], one)
            lm.sync(bar)
        lm.copy(Y, sub, coords=(4 * w, 0))
