# mutant: pending-plus-1
# original: corpus/splitk/sm100_splitk_partials.cake
# line: 57: lm.tma_store_wait(pending=0)
# change: pending: `0` -> `1`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 272, 528}; block_idx 0 of grid_dim 1; 498 states; first violation: sync.async-at-exit: epi exits while its TMA store group still accesses shared memory (smem_p[1] bytes [163840, 196608): no lm.tma_store_wait(pending=0) before exit) at `smem_p.tma_store(W, coords=(lm.block_idx(2), m_blk, n_blk + h * 64), stage=h)` (line 55) (K=272)
# expect-any: sync.async-at-exit
# Blackwell parallel split-K partial kernel (tcgen05): grid (m, n, split),
# K-slice per CTA, 128x128 f32 partial in TMEM, epilogue stores it as two
# 128x64 f32 sub-tiles through a 2-slot TMA store ring into W[split, M, N].
# Empty slices: the MMA warp issues no MMA and commits an empty group to
# acc_full, and the epilogue writes a zero tile instead of reading TMEM.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def splitk_partial_sm100(lm, A: LM.tma2d, B: LM.tma2d, W: LM.tma3d, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(196608)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_p   = pool.view(offset=131072, shape=(128, 64), dtype=lm.f32,  stages=2)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    part     = lm.regs(shape=(128, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    k_per   = lm.cdiv(k_tiles, lm.grid_dim(2))
    k_lo    = lm.block_idx(2) * k_per
    k_n     = max(min(k_per, k_tiles - k_lo), 0)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_n):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, (k_lo + k) * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, (k_lo + k) * 64), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_n):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        for h in lm.range(0, 2):
            if k_n > 0:
                lm.copy(part, tmem_acc[:, h * 64:h * 64 + 64])
            else:
                lm.fill(part, 0.0)
            lm.copy(smem_p[h], part)
            lm.fence_proxy()
            smem_p.tma_store(W, coords=(lm.block_idx(2), m_blk, n_blk + h * 64), stage=h)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=1)
