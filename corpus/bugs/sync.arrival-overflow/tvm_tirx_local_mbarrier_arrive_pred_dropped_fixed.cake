# FIXED form of tvm_tirx_local_mbarrier_arrive_pred_dropped.cake
# (apache/tvm PR #20250): the local mbarrier arrive keeps its predicate, so
# only the elected lane of the producer warp arrives: one arrival per phase
# of the count-1 handoff barrier.
# expect: pass
@cake.schedule(target="sm_100a")
def tvm_tirx_local_mbarrier_arrive_pred_kept_fixed(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool = lm.smem(16384)
    buf  = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    tin  = lm.regs(shape=(64, 64), dtype=lm.bf16)
    tout = lm.regs(shape=(64, 64), dtype=lm.bf16)

    prod = lm.role(warps=[0])
    cons = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=2, prod=[cons], cons=[prod], init_count=1)

    with prod:
        for i in lm.range(0, n):
            lm.wait(empty, iter=i - 2)
            lm.copy(tin, X, coords=(64 * i, 0))
            lm.copy(buf[i], tin)
            lm.arrive(full, iter=i)                   # the fix: one elected lane arrives (PR #20250)
    with cons:
        for i in lm.range(0, n):
            lm.wait(full, iter=i)
            lm.copy(tout, buf[i])
            lm.arrive(empty, iter=i)
            lm.copy(Y, tout, coords=(64 * i, 0))
