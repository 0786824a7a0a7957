# BUG (data.stale-read): a producer warp keeps a running offset in registers
# (MoE grouped GEMM's scheduler: the rows of the groups before the tile,
# advanced on every tile by `lm.binary(v, v, 1.0, op="add")`) and publishes
# it in shared memory for the consumer warp, which reads it after a barrier
# on every tile - but the publication sits under `if t == 0:`, the idiom of
# a table loaded lazily on the first tile.  From tile 1 on the consumer
# reads tile 0's offset.  No expression of the write reads the tile loop's
# variable: the value changes because the fragment carries it from one tile
# to the next.  Until session 37 this was *proved* (exit 0): the builder's
# data trace took the fragment's data for the same at every tile and read
# the skipped write as a lazy table's (docs/rules/data.stale-read.md
# "Across roles, and only where the data changes").  Happens for every n >= 2.
# Correct: sm90_running_offset_published_first_tile_only_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def running_offset_published(lm, T: LM.gmem, O: LM.gmem, n: LM.i32):
    lm.assume(n > 0)
    lm.assume(n <= 4)
    pool = lm.smem(256)
    row  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)
    w    = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    bar  = lm.named_barrier(roles=[prod, cons])
    with prod:
        lm.copy(v, T, coords=(0, 0))
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.binary(v, v, 1.0, op="add")
            if t == 0:
                lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, n):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
