# RESPELLING of corpus/bugs/sync.arrival-overflow/tvm_tirx_local_mbarrier_arrive_pred_dropped.cake
# (apache/tvm PR #20250): the dropped predicate spelled as it executes,
# one arrive per lane in a 32-trip loop; the rings addressed with stage=
# (explicit phases in the producer, implicit ones in the consumer); the
# producer's first lap as a guard instead of a negative iteration.
# expect: sync.arrival-overflow
@cake.schedule(target="sm_100a")
def local_mbarrier_copy(lm, src: LM.gmem, dst: LM.gmem, num_iters: LM.i32):
    lm.assume(0 < num_iters)
    smem = lm.smem(32768)
    tile = smem.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    r_in  = lm.regs(shape=(64, 64), dtype=lm.bf16)
    r_out = lm.regs(shape=(64, 64), dtype=lm.bf16)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    filled = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=1)
    freed  = lm.barrier(count=2, prod=[consumer], cons=[producer], init_count=1)
    with producer:
        for it in lm.range(0, num_iters):
            if it >= 2:
                lm.wait(freed, stage=it % 2, phase=(it - 2) // 2)
            lm.copy(r_in, src, coords=(it * 64, 0))
            lm.copy(tile[it % 2], r_in)
            for lane in lm.range(0, 32):
                lm.arrive(filled, stage=it % 2)     # expect-error: sync.arrival-overflow
    with consumer:
        for it in lm.range(0, num_iters):
            lm.wait(filled, stage=it % 2)
            lm.copy(r_out, tile[it % 2])
            lm.arrive(freed, stage=it % 2)
            lm.copy(dst, r_out, coords=(it * 64, 0))
