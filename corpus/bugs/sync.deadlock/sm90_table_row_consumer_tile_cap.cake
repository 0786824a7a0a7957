# BUG (sync.deadlock): a producer warp stages one row of a table per tile
# (`lm.cdiv(K, 64)` tiles, K <= 256) between two named-barrier syncs that
# the consumer warp pairs with; the consumer caps its tile count at 3
# (`min((K + 63) // 64, 3)`, a leftover of a three-row table) while the
# facts allow four tiles.  For K > 192 the producer syncs for a fourth tile
# that no consumer sync meets: both warps hang.  Until session 39 this
# exited 0 *checked* (`K in {1,65,129}`): no covering value ran K > 192, and
# the proof refuses loops of different bounds.  The bounded check now also
# runs, for loops of two roles whose trip counts differ, a binding where the
# difference takes a value no covering one gave it (docs/z3.md "Soundness
# review, session 39"): K = 256.  It does so once the proof leaves the
# schedule unproved, so `# check: proof` makes the corpus gate run the
# proof, as `cake check` does by default.
# Correct: sm90_table_row_consumer_tile_cap_fixed.cake.
# check: proof
# expect: sync.deadlock
@cake.schedule(target="sm_90a")
def table_row_consumer_tile_cap(lm, T: LM.gmem, O: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.assume(K <= 256)
    pool = lm.smem(256)
    row  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)
    w    = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    bar  = lm.named_barrier(roles=[prod, cons])
    with prod:
        for t in lm.range(0, lm.cdiv(K, 64)):
            lm.sync(bar)
            lm.copy(v, T, coords=(t, 0))
            lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, min((K + 63) // 64, 3)):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
