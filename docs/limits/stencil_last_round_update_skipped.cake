# Correct; was reported data.stale-read (a false alarm; helper attack52,
# session 52): the two-warp stencil of StaleRead.StencilRowSeededByItsReaderUpdatedByAnother
# with each warp's update skipped in the last round (`if it + 1 < n:`). Each
# round reads the whole buffer, then (after a barrier) each warp rewrites
# the row the other reads next round; the last round's rewrite is read by
# no one, so leaving it out changes no read. Was reported at n = 3: "ws[0]
# reads buf[0] bytes [0, 128) meaning lap 1 of the slot (index 0), but it
# holds the data of lap 0" (the loop-skip rule). Since session 53 (helper
# stale53) it is checked with no finding; what is left is the proof:
# "proof: unknown (n = 2 * T + 0: loops with a step and a trip expression n
# that may be negative (not covered yet))". docs/known-limits.md
# "data.stale-read: a stencil whose last round skips its update".
@cake.schedule(target="sm_80")
def stencil(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(4, 8), dtype=lm.f32)
    two  = lm.regs(shape=(2, 8), dtype=lm.f32)
    all4 = lm.regs(shape=(4, 8), dtype=lm.f32)
    one  = lm.regs(shape=(1, 8), dtype=lm.f32)
    ws = lm.role(warps=[0, 1], group=1)
    bar = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(two, X, coords=(2 * w, 0))
        lm.copy(buf[0][2 * w:2 * w + 2, :], two)
        lm.sync(bar)
        for it in lm.range(0, n):
            lm.copy(all4, buf[0])
            lm.sync(bar)
            lm.copy(one, all4[1:2, :])
            if it + 1 < n:
                lm.copy(buf[0][2 - w:3 - w, :], one)
            lm.sync(bar)
        lm.copy(Y, all4, coords=(4 * w, 0))
