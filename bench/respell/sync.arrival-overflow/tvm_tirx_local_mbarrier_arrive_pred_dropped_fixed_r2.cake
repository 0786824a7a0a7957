# RESPELLING of corpus/bugs/sync.arrival-overflow/tvm_tirx_local_mbarrier_arrive_pred_dropped_fixed.cake
# (apache/tvm PR #20250), helper respell43: the correct twin of _r1.cake's spelling, every
# lane arriving in a 32-trip loop with stage= and implicit phases, the barrier expecting
# all 32 (init_count=32): the 32 arrivals between two waits are one phase
# (docs/semantics.md "Implicit phases of arrivals"), as `count=32` or `iter=` say.
# expect: pass
@cake.schedule(target="sm_100a")
def local_mbarrier_copy_lanes_fixed(lm, src: LM.gmem, dst: LM.gmem, num_iters: LM.i32):
    lm.assume(0 < num_iters)
    smem = lm.smem(32768)
    tile = smem.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    r_in  = lm.regs(shape=(64, 64), dtype=lm.bf16)
    r_out = lm.regs(shape=(64, 64), dtype=lm.bf16)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    filled = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=32)
    freed  = lm.barrier(count=2, prod=[consumer], cons=[producer], init_count=1)
    with producer:
        for it in lm.range(0, num_iters):
            if it >= 2:
                lm.wait(freed, stage=it % 2, phase=(it - 2) // 2)
            lm.copy(r_in, src, coords=(it * 64, 0))
            lm.copy(tile[it % 2], r_in)
            for lane in lm.range(0, 32):
                lm.arrive(filled, stage=it % 2)
    with consumer:
        for it in lm.range(0, num_iters):
            lm.wait(filled, stage=it % 2)
            lm.copy(r_out, tile[it % 2])
            lm.arrive(freed, stage=it % 2)
            lm.copy(dst, r_out, coords=(it * 64, 0))
