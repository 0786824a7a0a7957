# BUG (data.stale-read): sm90_second_view_halves_fixed.cake with a 1-based
# loop over the halves (lm.range(1, 3)).  half_t[1] is rows 64-127, but
# "half 2" selects slot 2 % 2 = 0 of half_t, meaning its second lap, which
# nobody writes: it holds rows 0-63 of the one tile stored through smem_t
# (lap 0).  Rows 0-63 are stored where rows 128-191 belong and rows 0-63 of
# Y are never written.  Nothing races: the second view is compared with
# the view that wrote the bytes by laps.
# Fix: sm90_second_view_halves_fixed.cake - lm.range(0, 2).
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def second_view_halves_one_based(lm, T: LM.gmem, Y: LM.gmem):
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
        for h in lm.range(1, 3):
            lm.copy(y, half_t[h])  # expect-error: data.stale-read
            lm.binary(y, y, 2.0, op="mul")
            lm.copy(Y, y, coords=(h * 64 - 64, 0))
