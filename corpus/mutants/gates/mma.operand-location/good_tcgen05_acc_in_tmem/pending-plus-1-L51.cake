# mutant: pending-plus-1
# original: corpus/gates/mma.operand-location/good_tcgen05_acc_in_tmem.cake
# line: 51: lm.tma_store_wait(pending=0)
# change: pending: `0` -> `1`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 336, 400}; block_idx 0 of grid_dim 1; 444 states; first violation: sync.async-at-exit: epi exits while its TMA store group still accesses shared memory (smem_c[1] bytes [114688, 131072): no lm.tma_store_wait(pending=0) before exit) at `smem_c.tma_store(C, coords=(m_blk, n_blk + j * 64), iter=j)` (line 49) (K=208)
# expect-any: sync.async-at-exit
# GATE mma.operand-location (good): the fix of bad_tcgen05_acc_in_registers -
# tcgen05.mma with A and B from shared
# memory (descriptors) and the accumulator in TMEM, drained by an epilogue
# warpgroup (a single warp reaches only 32 of the 128 TMEM lanes).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def gemm_tcgen05_a_smem(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(131072)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b   = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c   = pool.view(offset=98304, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
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
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
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
        for j in lm.range(0, 2):
            lm.copy(acc_r, tmem_acc[:, j * 64:j * 64 + 64])
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[j], acc_r)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + j * 64), iter=j)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=1)
