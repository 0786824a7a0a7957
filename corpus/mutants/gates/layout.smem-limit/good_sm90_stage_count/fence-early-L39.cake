# mutant: fence-early
# original: corpus/gates/layout.smem-limit/good_sm90_stage_count.cake
# line: 39: lm.fence_proxy()
# change: moved `lm.copy(smem_c[h], acc)` after `lm.fence_proxy()`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 80, 272, 336, 400, 784} (6 combinations with every trip count <= 13); block_idx 0 of grid_dim 1; 372 states; first violation: proxy.missing-fence: math reads smem_c[0] bytes [147456, 163840) through the async proxy, but math's generic-proxy write of it has no lm.fence_proxy() after it at `smem_c.tma_store(C, coords=(m_blk, n_blk), stage=h)` (line 40) (M=0, N=0, K=400)
# expect-any: proxy.missing-fence
# GATE layout.smem-limit (good): 6 stages (6 x 24 KiB) + a 2-slot C ring
# (32 KiB) = 176 KiB, under sm_90a's 227 KiB.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_smem_within_limit(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(180224)
    smem_a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=6, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=6, swizzle="128B")
    smem_c = pool.view(offset=147456, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=6)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 6)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        for h in lm.range(0, 2):
            lm.tma_store_wait(pending=0)
            lm.fence_proxy()
            lm.copy(smem_c[h], acc)
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=h)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
