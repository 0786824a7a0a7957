# A two-slot ring whose loops are unrolled by two: a loop over pairs of iterations
# (`p < lm.cdiv(K, 2)`), the second of each pair under `if 2 * p + 1 < K` (the form of an
# sm_80 mainloop unrolled by hand, bench/respell/good/sm80_ws_named_barriers_r2.cake).
# Correct; proved since session 45 (lead) per case K == 2 * lm.cdiv(K, 2) - r (docs/z3.md
# "The dividend itself as the finer quotient"); before, the proof refused it ("the schedule
# reads K besides the trip count").
# expect: pass
@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(16384)
    v = pool.view(offset=0, shape=(64, 32), dtype=lm.bf16, stages=2)
    r = lm.regs(shape=(64, 32), dtype=lm.bf16)
    load = lm.role(warps=[0])
    use = lm.role(warps=[1])
    full = lm.barrier(count=2, prod=[load], cons=[use])
    empty = lm.barrier(count=2, prod=[use], cons=[load])
    pairs = lm.cdiv(K, 2)
    with load:
        for p in lm.range(0, pairs):
            lm.wait(empty, iter=2 * p - 2)
            v.cp_async(A, coords=(0, 64 * p), iter=2 * p)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.arrive(full, iter=2 * p)
            if 2 * p + 1 < K:
                lm.wait(empty, iter=2 * p - 1)
                v.cp_async(A, coords=(0, 64 * p + 32), iter=2 * p + 1)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.arrive(full, iter=2 * p + 1)
    with use:
        for p in lm.range(0, pairs):
            lm.wait(full, iter=2 * p)
            lm.copy(r, v[2 * p])
            lm.arrive(empty, iter=2 * p)
            if 2 * p + 1 < K:
                lm.wait(full, iter=2 * p + 1)
                lm.copy(r, v[2 * p + 1])
                lm.arrive(empty, iter=2 * p + 1)
