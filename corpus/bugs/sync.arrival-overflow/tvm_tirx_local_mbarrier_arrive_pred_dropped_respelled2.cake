# RESPELLING of corpus/bugs/sync.arrival-overflow/tvm_tirx_local_mbarrier_arrive_pred_dropped.cake
# (apache/tvm PR #20250): the dropped predicate as one arrive per lane in a
# 32-trip loop, each annotated with the iteration it releases (iter=i);
# the consumer as one 4-warp role; the producer's first lap as iter=i - 2.
# expect: sync.arrival-overflow
@cake.schedule(target="sm_100a")
def local_mbarrier_copy_iter(lm, src: LM.gmem, dst: LM.gmem, num_iters: LM.i32):
    lm.assume(num_iters >= 1)
    smem = lm.smem(32768)
    tile = smem.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    r_in  = lm.regs(shape=(64, 64), dtype=lm.bf16)
    r_out = lm.regs(shape=(64, 64), dtype=lm.bf16)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    filled = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=1)
    freed  = lm.barrier(count=2, prod=[consumer], cons=[producer], init_count=1)
    with producer:
        for i in lm.range(0, num_iters):
            lm.wait(freed, iter=i - 2)
            lm.copy(r_in, src, coords=(i * 64, 0))
            lm.copy(tile[i], r_in)
            for lane in lm.range(0, 32):
                lm.arrive(filled, iter=i)     # expect-error: sync.arrival-overflow
    with consumer:
        for i in lm.range(0, num_iters):
            lm.wait(filled, iter=i)
            lm.copy(r_out, tile[i])
            lm.arrive(freed, iter=i)
            lm.copy(dst, r_out, coords=(i * 64, 0))
