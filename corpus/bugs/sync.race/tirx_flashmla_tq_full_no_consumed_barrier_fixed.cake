# FIXED form of tirx_flashmla_tq_full_no_consumed_barrier.cake
# (mlc-ai/TIRx-kernels PR #42): a tq_consumed barrier (init_count 4: one
# arrival per reading warp) that the publisher waits on before it
# republishes the one-slot tQ buffer.
# expect: pass
@cake.schedule(target="sm_100a")
def tirx_flashmla_tq_full_no_consumed_barrier_fixed(lm, Q: LM.tma2d, O: LM.gmem, n_tasks: LM.i32):
    pool  = lm.smem(8192)
    smem_q = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    q_rows = lm.regs(shape=(16, 64), dtype=lm.f32)

    publisher = lm.role(warps=[8])
    readers   = lm.role(warps=[0, 1, 2, 3], group=1)
    tq_full   = lm.barrier(count=1, prod=[publisher], cons=[readers], init_count=1)
    tq_consumed = lm.barrier(count=1, prod=[readers], cons=[publisher], init_count=4)

    with publisher:
        for t in lm.range(0, n_tasks):
            if t > 0:
                lm.wait(tq_consumed, stage=0)
            smem_q.tma_load(Q, coords=(t * 64, 0), stage=0, barrier=tq_full)

    with readers:
        r = 16 * lm.instance()
        for t in lm.range(0, n_tasks):
            lm.wait(tq_full, stage=0)
            lm.copy(q_rows, smem_q[0][r:r + 16, :])
            lm.fence_proxy()   # generic read of a TMA-filled slot before its release (docs/rules/proxy.missing-fence.md)
            lm.arrive(tq_consumed, stage=0)
            lm.copy(O, q_rows, coords=(t * 64 + r, 0))
