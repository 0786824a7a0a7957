# mutant: trip-minus-1
# original: corpus/gates/layout.misaligned/good_swizzled_view_offset.cake
# line: 30: for k in lm.range(0, k_tiles):
# change: loop bound: `k_tiles` -> `k_tiles - 1`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 80, 144, 208, 272} (5 combinations with every trip count <= 5); block_idx 0 of grid_dim 1; 156 states; first violation: sync.async-at-exit: every role has exited while the TMA load into smem_a[0] bytes [0, 8192) has not landed at `smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)` (line 26) (M=0, N=0, K=1)
# expect-any: sync.async-at-exit
# GATE layout.misaligned (good): rings at 0 and 16384 (1024-aligned),
# staging tile at 49152 (128-byte aligned for TMA).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_aligned_ring(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles - 1):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        for h in lm.range(0, 1):
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[h], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=h)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
