# FIXED form of tirx_mqa_q_stage_generic_read_release.cake
# (mlc-ai/TIRx-kernels PR #8): fence.proxy.async after the generic reads
# of the stage and before the arrive that releases it to the TMA producer.
# expect: pass
@cake.schedule(target="sm_100a")
def tirx_mqa_q_stage_generic_read_release_fixed(lm, Wq: LM.tma2d, Out: LM.gmem, n_q: LM.i32):
    pool = lm.smem(16384)
    w_s  = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    w    = lm.regs(shape=(64, 64), dtype=lm.f32)
    res  = lm.regs(shape=(64, 64), dtype=lm.f32)

    tma  = lm.role(warps=[4])
    math = lm.role(warps=[0, 1, 2, 3])

    q_full  = lm.barrier(count=2, prod=[tma], cons=[math], init_count=1)
    q_empty = lm.barrier(count=2, prod=[math], cons=[tma], init_count=1)

    base = lm.block_idx(0) * 64 * n_q
    with tma:
        for t in lm.range(0, n_q):
            if t >= 2:
                lm.wait(q_empty, stage=t % 2)
            w_s.tma_load(Wq, coords=(base + t * 64, 0), stage=t % 2, barrier=q_full)

    with math:
        lm.fill(res, 0.0)
        for t in lm.range(0, n_q):
            lm.wait(q_full, stage=t % 2)
            lm.copy(w, w_s[t % 2])
            lm.binary(res, res, w, op="add")
            lm.fence_proxy()
            lm.arrive(q_empty, stage=t % 2)
        lm.copy(Out, res, coords=(lm.block_idx(0) * 64, 0))
