# mutant: trip-skip-first
# original: corpus/gemm/sm100_tcgen05_256_subtiled.cake
# line: 35: for k in lm.range(0, k_tiles):
# change: loop start: `0` -> `1`
# label: bad (sync.arrival-underflow) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 80, 144, 208, 336, 400} (6 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 51 states; first violation: sync.arrival-underflow: phase 0 of full[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(full, iter=k)` (line 42) (M=0, N=0, K=1)
# expect-any: sync.arrival-underflow
# Blackwell tcgen05 GEMM, 128x256x64 tiles, 3-stage ring, with a
# sub-tiled epilogue (CUTLASS sm100 epilogue with EpilogueTile 128x64):
# the 128x256 f32 accumulator occupies TMEM columns [0, 256); the epilogue
# warps load it 64 columns at a time (tcgen05.ld of a TMEM sub-tile),
# convert, and push it through a 2-slot TMA store ring
# (tma_store_wait(pending=1) frees the slot of sub-tile j-2).
# expect_tx derived: 16384 (A) + 32768 (B) per slot per k-block.
# smem: A 3x16K + B 3x32K + C 2x16K = 176 KiB.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def gemm_sm100_256_subtiled(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                            M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(196608)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b   = pool.view(offset=49152,  shape=(256, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c   = pool.view(offset=147456, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=256, shape=(128, 256), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=3)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 256

    with load:
        for k in lm.range(1, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        for j in lm.range(0, 4):
            lm.copy(acc_r, tmem_acc[:, j * 64:j * 64 + 64])
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[j], acc_r)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + j * 64), iter=j)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
