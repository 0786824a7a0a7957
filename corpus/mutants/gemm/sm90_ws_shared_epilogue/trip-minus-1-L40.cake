# mutant: trip-minus-1
# original: corpus/gemm/sm90_ws_shared_epilogue.cake
# line: 40: for k in lm.range(0, k_tiles):
# change: loop bound: `k_tiles` -> `k_tiles - 1`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 80, 144, 208, 272, 528} (6 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 384 states; first violation: sync.async-at-exit: every role has exited, but no instance waited for phase 0 of full[0]: the TMA load counted into it may still be in flight at `smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)` (line 35) (M=0, N=0, K=1)
# expect-any: sync.async-at-exit
# Hopper warp-specialized GEMM whose two consumer warpgroups share ONE
# 128x128 C staging tile (CUTLASS sm90 collective epilogue style): each
# instance writes its 64-row half (a slice), fences its own generic writes,
# and the two instances meet on a named barrier (bar.sync over the consumer
# role only, 256 threads); then instance 0 issues the single TMA store and
# drains it.  Instance 1 may exit early: the store only reads smem that
# instance 0 waits for.
# Mainloop: the 4-stage ring of gemm/sm90_ws_4stage.cake.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_shared_epilogue(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                              M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)
    epi   = lm.named_barrier(roles=[consumers])

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
        for k in lm.range(0, k_tiles - 1):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[0][m0:m0 + 64, :], acc)
        lm.fence_proxy()
        lm.sync(epi)
        if lm.instance() == 0:
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
