# Broken twin of stencil_three_warps_row_update_skipped_once_fixed.cake
# (helper stale52, session 52): warp 2's row 0 is no longer an update
# computed from the round's read but the round's input row, loaded from X
# at the top of the round (`lm.copy(one, X, coords=(8 + it, 0))`) and still
# written after the barrier that follows the reads.  Warp 1 reads row 0
# before warp 2's write of that round is ordered, so from round 1 on it
# finds the previous round's input: the writer one barrier late of
# llama.cpp's kqmax_shared (docs/rules/data.stale-read.md "Returns are
# counted per byte", StaleRead.EntryWrittenOneBarrierLateIsStillStale).
# The same synchronization as the fixed stencil; what tells them apart is
# where the written data comes from: the write's data path reaches no read
# of the slot, so the third warp's first read is a lap of it and its
# round-1 read means lap 1: data.stale-read at n = 2 ("ws[1] reads buf[0]
# bytes [0, 32) meaning lap 1 ..., but it holds the data of lap 0").
# expect: data.stale-read
@cake.schedule(target="sm_80")
def stencil_three_warps_loaded_row_written_after_the_reads(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
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
            if w == 2:
                lm.copy(one, X, coords=(8 + it, 0))    # the round's input row
            lm.copy(all6, buf[0])  # expect-error: data.stale-read
            lm.sync(bar)
            if w != 2:
                lm.reduce(one, all6, op="max", axis=0)          # column max of the six rows
            lm.copy(buf[0][2 - w:3 - w, :], one)       # BUG: warp 2 writes its input row after the reads
            lm.sync(bar)
        lm.copy(Y, all6, coords=(6 * w, 0))
