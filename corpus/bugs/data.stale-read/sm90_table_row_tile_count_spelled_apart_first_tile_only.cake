# BUG (data.stale-read): a per-tile table row in shared memory, named by
# its one slot (row[0]), is loaded by a producer warp and read by a
# consumer warp after a barrier on every tile - but the producer loads it
# on its first tile only (`if t == 0:`), from coordinates the tile changes,
# so from tile 1 on the consumer multiplies tile 0's row.  The two roles
# count the tiles of K in two spellings of one number: the producer's
# `lm.cdiv(K, 64)`, the consumer's `(K + 63) // 64`.  Until session 37
# (sound37b) this was *proved* (exit 0): the cross-role skip rule paired
# loops by the spelling of their bounds, so the producer's loop was not
# the consumer's and the skipped write went unseen
# (docs/rules/data.stale-read.md "Loops paired by value, not spelling").
# Happens for every K > 64.
# Correct: sm90_table_row_tile_count_spelled_apart_first_tile_only_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def table_row_tile_count_spelled_apart(lm, T: LM.gmem, O: LM.gmem, K: LM.i32):
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
            if t == 0:
                lm.copy(v, T, coords=(t, 0))
                lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, (K + 63) // 64):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
