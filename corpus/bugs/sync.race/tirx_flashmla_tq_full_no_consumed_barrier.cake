# BUG (sync.race): the SM100 FlashMLA kernel of mlc-ai/TIRx-kernels, as fixed
# by mlc-ai/TIRx-kernels PR #42 ("Fix persistent stage reuse
# synchronization", second root cause).  One thread publishes each task's
# Q tile (tQ) through a one-slot buffer and its tQ-full mbarrier, and all
# four warps of warpgroup 0 wait on it and read the tile; nothing told the
# publisher that every reader was done.  Under task stealing the publisher
# issued the next task's tQ while a lagging warp had not yet observed (or
# was still reading) the previous phase: the tile was overwritten under it
# and the next phase could overtake its parity wait.  The fix adds a
# consumed mbarrier with one elected arrival per reading warp that the
# publisher waits on before republishing.
# Modelled on one CTA (the multicast of tQ to the peer CTA is left out):
# a publisher warp TMA-loads a 64x64 Q tile per task, four one-warp
# reader instances wait, read it into registers and write their 16-row
# share of the task's result to global memory.
# Fix: tirx_flashmla_tq_full_no_consumed_barrier_fixed.cake.
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase data.stale-read sync.arrival-overflow proxy.missing-fence
@cake.schedule(target="sm_100a")
def tirx_flashmla_tq_full_no_consumed_barrier(lm, Q: LM.tma2d, O: LM.gmem, n_tasks: LM.i32):
    pool  = lm.smem(8192)
    smem_q = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    q_rows = lm.regs(shape=(16, 64), dtype=lm.f32)

    publisher = lm.role(warps=[8])
    readers   = lm.role(warps=[0, 1, 2, 3], group=1)
    tq_full   = lm.barrier(count=1, prod=[publisher], cons=[readers], init_count=1)

    with publisher:
        for t in lm.range(0, n_tasks):
            smem_q.tma_load(Q, coords=(t * 64, 0), stage=0, barrier=tq_full)   # expect-error: sync.race

    with readers:
        r = 16 * lm.instance()
        for t in lm.range(0, n_tasks):
            lm.wait(tq_full, stage=0)
            lm.copy(q_rows, smem_q[0][r:r + 16, :])   # expect-error: sync.race
            lm.copy(O, q_rows, coords=(t * 64 + r, 0))
