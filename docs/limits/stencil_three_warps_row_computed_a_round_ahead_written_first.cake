# Correct, reported data.stale-read (a false alarm; helper stale53, session
# 53): the other fix of corpus/bugs/data.stale-read/stencil_three_warps_row_computed_a_round_ahead.cake.
# Warp 2 still computes row 0 a round ahead, but writes it at the top of
# the round, a barrier before the round's reads (the writer one barrier
# late moved one barrier earlier), so every round reads the row it means.
# Reported at n = 2: "ws[0] reads buf[0] bytes [0, 64) meaning lap 1 of the
# slot (index 0), but it holds the data of lap 0".  Two causes, both older
# than session 53 (main 14196dc7 reports the same): warp 2's round-0 write
# lands on warp 0's seed of row 0 before warp 0's first read, so the seed
# rule is dropped for warp 0's whole view index (Builder::checkSeeds keys
# the drop by process, view and index) and row 1, which warp 0 seeded and
# nobody overwrote, loses its seed too; and with that drop left out, warp
# 2's read before the loop and its round-0 read both find the seed of rows
# 1 and 2 across a barrier, two returns for one lap of their updaters.
# docs/known-limits.md "data.stale-read: a row computed a round ahead,
# written before the reads".
@cake.schedule(target="sm_80")
def stencil_written_first(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            if w == 2:
                lm.copy(buf[0][0:1, :], one)           # the row computed a round ahead, before the round's reads
            lm.sync(bar)
            lm.copy(all6, buf[0])
            lm.sync(bar)
            lm.reduce(one, all6, op="max", axis=0)      # warp 2: the next round's row 0
            if w != 2:
                lm.copy(buf[0][2 - w:3 - w, :], one)
        lm.copy(Y, all6, coords=(6 * w, 0))
