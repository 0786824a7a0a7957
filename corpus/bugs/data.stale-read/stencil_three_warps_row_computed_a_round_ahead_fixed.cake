# Fixed form of stencil_three_warps_row_computed_a_round_ahead.cake (helper
# stale53, session 53): warp 2 computes row 0 from the round's read, as the
# other warps compute theirs, and writes it after the round's reads: an
# in-place update that answers them (no order of the same computations puts
# it before the reads it is computed from), so the round after reads it.
# The row is seeded by warp 0, updated by warp 2 and read by warp 1 too
# (docs/rules/data.stale-read.md "A row seeded by one instance, updated from
# the slot by another").  The other fix, warp 2 writing its row computed a
# round ahead *before* the round's reads (a barrier between), is correct
# too but a false data.stale-read (docs/known-limits.md "data.stale-read: a
# row computed a round ahead, written before the reads",
# docs/limits/stencil_three_warps_row_computed_a_round_ahead_written_first.cake).
# Proved.
# expect: pass
@cake.schedule(target="sm_80")
def stencil_three_warps_row_computed_a_round_ahead_fixed(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            lm.reduce(one, all6, op="max", axis=0)      # fixed: every warp's row from the round's read
            lm.copy(buf[0][2 - w:3 - w, :], one)
            lm.sync(bar)
        lm.copy(Y, all6, coords=(6 * w, 0))
