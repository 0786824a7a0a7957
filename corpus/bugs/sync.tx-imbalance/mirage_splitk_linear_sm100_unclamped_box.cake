# BUG (sync.tx-imbalance): Mirage's persistent-kernel SplitK linear task on
# Blackwell (include/mirage/persistent_kernel/tasks/blackwell/
# linear_sm100_mpk.cuh), as fixed by mirage-project/mirage PR #705 ("clamp
# TMA box dims for splitk linear on SM100 to fix deadlock", issue #699).
# PR #656 made the kernel announce the input tile's bytes with the batch
# clamped to the MMA_N tile (kClampedBN = min(MMA_N, batch_size)) and
# clamped the TMA descriptor's box accordingly - but only for the plain
# linear tasks.  For TASK_SPLITK_LINEAR_SM100 the descriptor kept the full
# 16x64 box: with batch 8 the kernel's expect_tx counts 8*64*2 = 1024 bytes
# for the input tile while the TMA delivers 16*64*2 = 2048.  The surplus
# corrupts ab_full's transaction count, its phase stops flipping and the
# MMA warp waits forever (deterministic hang on the first splitk task).
# Written with an explicit expect_tx (arrive.expect_tx with the kernel's
# byte count; lowering then derives none for the barrier).
# Modelled: swap-AB (the 64-row weight tile is the MMA's A, the activation
# tile its B), one K split per CTA (k_per_split k-blocks from block_idx(1)),
# a 3-stage ring, the fp32 partial stored through TMA.
# Fix: mirage_splitk_linear_sm100_unclamped_box_fixed.cake.
# expect: sync.tx-imbalance
# may-also: sync.race data.stale-read sync.async-at-exit sync.deadlock
@cake.schedule(target="sm_100a")
def mirage_splitk_linear_sm100_unclamped_box(lm, W: LM.tma2d, X: LM.tma2d, P: LM.tma2d, k_per_split: LM.i32):
    pool     = lm.smem(65536)
    smem_w   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_x   = pool.view(offset=24576, shape=(16, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_p   = pool.view(offset=32768, shape=(64, 16), dtype=lm.f32)
    tmem_acc = lm.tmem(cols=0, width=32, shape=(64, 16), dtype=lm.f32)
    acc_r    = lm.regs(shape=(64, 16), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    tma  = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=3)
    ab_full  = lm.barrier(prod=[tma], cons=[mma], init_count=1, pipeline=pipe)
    ab_empty = lm.barrier(prod=[mma], cons=[tma], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    n_blk  = lm.block_idx(0) * 64
    k_base = lm.block_idx(1) * k_per_split

    with tma:
        for k in lm.range(0, k_per_split):
            lm.wait(ab_empty, iter=k - 3)
            lm.expect_tx(ab_full, 64 * 64 * 2 + 8 * 64 * 2, iter=k)             # expect-error: sync.tx-imbalance
            smem_w.tma_load(W, coords=(n_blk, (k_base + k) * 64), iter=k, barrier=ab_full)
            smem_x.tma_load(X, coords=(0, (k_base + k) * 64), iter=k, barrier=ab_full)   # expect-error: sync.tx-imbalance

    with mma:
        for k in lm.range(0, k_per_split):
            lm.wait(ab_full, iter=k)                                              # expect-error: sync.tx-imbalance
            lm.mma(tmem_acc, smem_w[k], smem_x[k], init=(k == 0))
            lm.mma_commit(barrier=ab_empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_p[0], acc_r)
        lm.fence_proxy()
        smem_p.tma_store(P, coords=(lm.block_idx(1) * 64 + n_blk, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
