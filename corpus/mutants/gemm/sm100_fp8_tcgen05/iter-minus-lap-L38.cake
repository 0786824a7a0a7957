# mutant: iter-minus-lap
# original: corpus/gemm/sm100_fp8_tcgen05.cake
# line: 38: lm.wait(full, iter=k)
# change: iter: `k` -> `k - 3`
# label: bad (data.stale-read, sync.race, sync.async-at-exit, sync.lost-phase) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 144, 272, 400, 656, 784} (6 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 1138 states; first violation: data.stale-read: mma reads smem_a[0] bytes [0, 16384) (for index 0) but nothing was written there yet at `lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))` (line 39) (M=0, N=0, K=1)
# expect-any: data.stale-read sync.race sync.async-at-exit sync.lost-phase
# Blackwell FP8 (e4m3 x e4m3 -> f32) GEMM with tcgen05, 128x256 tiles,
# K block 128 (e4m3 rows of 128 bytes), 3-stage ring (A 16 KiB + B 32 KiB
# per stage), 256-column TMEM accumulator drained in four 64-column
# sub-tiles through a 2-slot store ring (per-tensor output scale applied
# in the epilogue).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def gemm_fp8_sm100(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(180224)
    smem_a   = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    smem_b   = pool.view(offset=49152,  shape=(256, 128), dtype=lm.e4m3, stages=3, swizzle="128B")
    smem_c   = pool.view(offset=147456, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=256, shape=(128, 256), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=3)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 128)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 256

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k - 3)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        for j in lm.range(0, 4):
            lm.copy(acc_r, tmem_acc[:, j * 64:j * 64 + 64])
            lm.binary(acc_r, acc_r, 0.5, op="mul")
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[j], acc_r)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + j * 64), iter=j)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
