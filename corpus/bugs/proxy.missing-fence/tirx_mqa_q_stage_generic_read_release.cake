# BUG (proxy.missing-fence): TIRx-kernels' FP4 / FP8 MQA (indexer) kernels,
# as fixed by mlc-ai/TIRx-kernels PR #8 ("Add proxy fences to MQA shared
# stage reuse"; found by native Racecheck).  A TMA producer fills a ring of
# Q stages (the FP8 kernel also stages weights and scales with them); the
# consumer warps read values of the stage with ordinary shared loads (the
# generic proxy) and then release the stage through its empty mbarrier,
# after which the producer's next TMA load (the async proxy) overwrites
# it.  Nothing ordered the generic reads before the async overwrite: the
# fix "publishes" the reads with fence.proxy.async before the release.
# Written in CAKE IR with stage= addressing and implicit phases (the slot's
# phase is the number of earlier waits on it), the producer's first lap
# skipped with an if, one producer warp and one consumer warpgroup, a
# 2-stage ring.  Left out: the MMA of Q against the KV block (its operand
# reads are async-proxy and need no fence), the FP4 scale-factor layout.
# Fix: tirx_mqa_q_stage_generic_read_release_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def tirx_mqa_q_stage_generic_read_release(lm, Wq: LM.tma2d, Out: LM.gmem, n_q: LM.i32):
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
            w_s.tma_load(Wq, coords=(base + t * 64, 0), stage=t % 2, barrier=q_full)   # expect-error: proxy.missing-fence

    with math:
        lm.fill(res, 0.0)
        for t in lm.range(0, n_q):
            lm.wait(q_full, stage=t % 2)
            lm.copy(w, w_s[t % 2])
            lm.binary(res, res, w, op="add")
            lm.arrive(q_empty, stage=t % 2)                                          # expect-error: proxy.missing-fence
        lm.copy(Out, res, coords=(lm.block_idx(0) * 64, 0))
