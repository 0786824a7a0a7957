# FIXED (second style): mirage_splitk_linear_sm100_unclamped_box.cake with
# the clamped 8x64 activation box of mirage-project/mirage PR #705, written
# as many hand-written kernels announce their bytes: one arrive.expect_tx
# per TMA load (weights 8192, activations 1024) on a full barrier that
# expects two arrivals per phase.  The two announcements add up to the
# 9216 bytes that land.  (cake compared each expect_tx alone with all the
# phase's loads and reported sync.tx-imbalance here: a false alarm, fixed
# in checks/layout_tma.cpp; gtest LayoutGates.TxBalanceSumsTheExpectTxOfOnePhase.)
# expect: pass
@cake.schedule(target="sm_100a")
def mirage_splitk_linear_sm100_expect_tx_per_load(lm, W: LM.tma2d, X: LM.tma2d, P: LM.tma2d, k_per_split: LM.i32):
    pool     = lm.smem(65536)
    smem_w   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_x   = pool.view(offset=24576, shape=(8, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_p   = pool.view(offset=32768, shape=(64, 8), dtype=lm.f32)
    tmem_acc = lm.tmem(cols=0, width=32, shape=(64, 8), dtype=lm.f32)
    acc_r    = lm.regs(shape=(64, 8), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    tma  = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=3)
    ab_full  = lm.barrier(prod=[tma], cons=[mma], init_count=2, pipeline=pipe)
    ab_empty = lm.barrier(prod=[mma], cons=[tma], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    n_blk  = lm.block_idx(0) * 64
    k_base = lm.block_idx(1) * k_per_split

    with tma:
        for k in lm.range(0, k_per_split):
            lm.wait(ab_empty, iter=k - 3)
            lm.expect_tx(ab_full, 64 * 64 * 2, iter=k)
            smem_w.tma_load(W, coords=(n_blk, (k_base + k) * 64), iter=k, barrier=ab_full)
            lm.expect_tx(ab_full, 8 * 64 * 2, iter=k)
            smem_x.tma_load(X, coords=(0, (k_base + k) * 64), iter=k, barrier=ab_full)

    with mma:
        for k in lm.range(0, k_per_split):
            lm.wait(ab_full, iter=k)
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
