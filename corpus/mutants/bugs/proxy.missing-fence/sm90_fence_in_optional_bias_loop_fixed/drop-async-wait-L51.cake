# mutant: drop-async-wait
# original: corpus/bugs/proxy.missing-fence/sm90_fence_in_optional_bias_loop_fixed.cake
# line: 51: lm.tma_store_wait(pending=0)
# change: deleted `lm.tma_store_wait(pending=0)`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 272, 528}, has_bias in {0, 1} (12 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 864 states; first violation: sync.async-at-exit: consumers[0] exits while its TMA store group still accesses shared memory (smem_c[0] bytes [131072, 147456): no lm.tma_store_wait(pending=0) before exit) at `smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)` (line 49) (K=1, has_bias=0)
# expect-any: sync.async-at-exit
# FIXED version of sm90_fence_in_optional_bias_loop.cake: one fence_proxy
# after the optional bias loop orders every generic write to the staged
# tile - from the lm.copy and, when has_bias == 1, from the in-smem bias
# add - before the TMA store, whatever the trip count.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_bias_fence_after_loop(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, Bias: LM.gmem,
                                 K: LM.i32, has_bias: LM.i32):
    lm.assume(K > 0)
    lm.assume(has_bias >= 0)
    lm.assume(has_bias <= 1)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    bias_r = lm.regs(shape=(1, 128), dtype=lm.bf16)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        s = lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[s], acc)
        for b in lm.range(0, has_bias):
            lm.copy(bias_r, Bias, coords=(0, n_blk))
            lm.binary(smem_c[s], smem_c[s], bias_r, op="add")
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)
        lm.tma_store_commit()
