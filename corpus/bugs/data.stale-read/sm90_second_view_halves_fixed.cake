# The same bytes read through a second view (issue 9 point 7).  The loader
# warpgroup stores a 128x64 tile through smem_t (one 16 KiB slot) and
# bar_arrive's t_ready; the compute warpgroup bar.sync's it and reads the
# tile as two 64x64 halves through half_t, a second view over the same
# bytes (2 slots of 8 KiB).  Correct: half_t[0] and half_t[1] are rows
# 0-63 and 64-127 of the one tile written.  (The checker used to call any
# read through another view than the writer's stale - "holds the data of
# smem_t"; a byte range holds one lap of its slot whatever view names it,
# and a view nobody writes through there means the data of the view
# that wrote the bytes, compared by laps: docs/rules/data.stale-read.md.)
# The stale variant: sm90_second_view_halves_one_based.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def second_view_halves(lm, T: LM.gmem, Y: LM.gmem):
    pool   = lm.smem(16384)
    smem_t = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=1)
    half_t = pool.view(offset=0, shape=(64, 64),  dtype=lm.bf16, stages=2)
    t      = lm.regs(shape=(128, 64), dtype=lm.bf16)
    y      = lm.regs(shape=(64, 64), dtype=lm.f32)

    load    = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    t_ready = lm.named_barrier(roles=[load, compute])

    with load:
        lm.copy(t, T, coords=(0, 0))
        lm.copy(smem_t[0], t)
        lm.bar_arrive(t_ready)

    with compute:
        lm.sync(t_ready)
        for h in lm.range(0, 2):
            lm.copy(y, half_t[h])
            lm.binary(y, y, 2.0, op="mul")
            lm.copy(Y, y, coords=(h * 64, 0))
