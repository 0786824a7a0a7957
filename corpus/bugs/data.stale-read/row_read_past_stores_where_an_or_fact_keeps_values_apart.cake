# Broken (helper attack53, session 53): cover47's row kernel (two warps each
# store 32 floats of a 64-float row, a barrier, each reads `64 + part`
# floats of it), where the part `(P + 9) // 700 - (P + 3) // 700` is 1 at
# P = 691..696 only, under `lm.assume(P % 7 == 0 or P < 10)`: of those
# values only 693 is allowed, and there the read takes one float past the
# stores (data.stale-read at P = 693). The far-step query asks for a value
# where the part bends with both neighbours allowed; under this fact only
# the values below 10 have allowed neighbours, and attack52's re-ask over
# the gaps between allowed values read only facts that repeat in P (this
# `or` does not: `P < 10` bounds it), so no gap was asked and main 14196dc7
# exited 0 *checked* ("sync: checked: P in {1,994}"). The same with
# `P * P % 7 == 0` and `P % 7 == 0 or P == 1`. Now the allowed values of a
# fact that neither bounds nor repeats are walked (checks/step_bounds.cpp
# allowedGaps; docs/z3.md "Session 53 (helper attack53)"). No fixed twin is
# kept: with the part 1 at no allowed value the row is correct but only
# *checked* (the proof is value by value for P, and the facts allow more
# than 32 values).
# expect: data.stale-read
@cake.schedule(target="sm_80")
def row_read_past_stores_where_an_or_fact_keeps_values_apart(lm, Src: LM.gmem, Dst: LM.gmem, P: LM.i32):
    lm.assume(P >= 1)
    lm.assume(P <= 1000)
    lm.assume(P % 7 == 0 or P < 10)
    pool = lm.smem(1024)
    buf = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)
    part = lm.regs(shape=(1, 128), dtype=lm.f32)
    got = lm.regs(shape=(1, 128), dtype=lm.f32)
    red = lm.regs(shape=(1, 1), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        lm.copy(part[0:1, 0:32], Src, coords=(lm.block_idx(0), 0))
        lm.copy(buf[0][0:1, 32 * w:32 * w + 32], part[0:1, 0:32])
        lm.sync(block)
        lm.copy(got[0:1, 0:64 + ((P + 9) // 700 - (P + 3) // 700)], buf[0][0:1, 0:64 + ((P + 9) // 700 - (P + 3) // 700)])  # expect-error: data.stale-read
        lm.reduce(red, got[0:1, 0:64 + ((P + 9) // 700 - (P + 3) // 700)], op="max", axis=1)
        lm.copy(Dst, red, coords=(lm.block_idx(0), w))
