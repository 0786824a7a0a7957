# mutant: iter-plus-lap
# original: corpus/layout/good_tmem_columns_c0_bounded.cake
# line: 48: lm.mma_commit(barrier=empty, iter=k)
# change: iter: `k` -> `k + 4`
# label: benign: no violation under exhaustive exploration with M = 0, N = 0, K in {1, 80, 144, 208, 272, 528}, C0 = 0 (6 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 468 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# The sm_100a warp-specialized GEMM (CUTLASS sm100 1-SM shape): a TMA warp
# fills a 4-slot ring, one MMA warp issues tcgen05.mma into a 128x128 f32
# TMEM accumulator and releases slots with tcgen05.commit, an epilogue
# warpgroup reads TMEM (tcgen05.ld), stages bf16 in smem and TMA-stores.
#
# LAYOUT tmem.out-of-range (good, symbolic): the accumulator's first column
# C0 is a parameter (e.g. chosen by a launcher that shares TMEM); with C0 a
# multiple of 128 in 0..384 the region [C0, C0 + 128) lies inside the 512
# TMEM columns for every allowed C0. Bad twin: bad_tmem_columns_c0_unbounded.
# (the original's expectation: see the label above)

@cake.schedule(target="sm_100a")
def good_tmem_columns_c0_bounded(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32, C0: LM.i32):
    lm.assume(K > 0)
    lm.assume(C0 >= 0)
    lm.assume(C0 <= 384)
    lm.assume(C0 % 128 == 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=C0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k + 4)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_c[0], acc_r)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
