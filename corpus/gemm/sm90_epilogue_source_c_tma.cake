# Hopper persistent warp-specialized GEMM with a source-C epilogue,
# D = acc + C (CUTLASS sm90 CollectiveEpilogue<Sm90TmaWarpSpecialized>,
# include/cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp,
# ReuseSmemC = false).  The producer warp loads the mainloop A/B ring and,
# after a tile's K loop, the tile's source C through TMA into a 2-slot C
# ring with its own full/empty barriers (CUTLASS's epilogue load_pipeline,
# filled by `load()` in the producer warp).  Each consumer warpgroup, in
# `store()`: load_pipeline.consumer_wait, copies its half of C smem ->
# registers with ordinary shared loads (tiled_s2r, the generic proxy),
# then load_pipeline.consumer_release, and the producer's next TMA load of
# C (the async proxy) overwrites that slot two tiles later.  This is a
# write-after-read across proxies: the reader fences
# (fence.proxy.async.shared::cta, lm.fence_proxy()) after its last shared
# load and before the release, as FlashAttention's FA4 sm90 backward does
# before pipeline_Q.consumer_release (Dao-AILab/flash-attention PR #2462),
# DeepEP PR #642 between its LDS and the TMA refill, and Triton's
# fence-insertion pass for WAR hazards (triton-lang/triton PR #7262).
# CUTLASS's own epilogue does the same: `cutlass::arch::fence_view_async_shared();
# load_pipeline.consumer_release(...)` when ReuseSmemC is false.  The form
# with that fence removed is
# bugs/proxy.missing-fence/cutlass_sm90_epilogue_source_c_release_no_fence.cake
# (docs/known-limits.md "Generic reads released to a TMA refill").
# D goes out through a TMA store ring as in gemm/sm90_persistent_ws.cake.
# smem: A 48K + B 48K + C 2 x 32K + D 4 x 16K = 224 KiB.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_epilogue_source_c(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, D: LM.tma2d,
                                M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(229376)
    smem_a = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152,  shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=98304,  shape=(128, 128), dtype=lm.bf16, stages=2)
    smem_d = pool.view(offset=163840, shape=(64, 128),  dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    c_r    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe   = lm.pipeline(stages=3)
    full   = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)
    c_full  = lm.barrier(count=2, prod=[producer], cons=[consumers], init_count=1)
    c_empty = lm.barrier(count=2, prod=[consumers], cons=[producer], init_count=2)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)
            # epilogue load of the source tile (CUTLASS collective_epilogue.load)
            lm.wait(c_empty, iter=t - 2)
            smem_c.tma_load(C, coords=(m_blk, n_blk), iter=t, barrier=c_full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            # epilogue: S2R of the source tile, then release it (no fence)
            lm.wait(c_full, iter=t)
            lm.copy(c_r, smem_c[t][m0:m0 + 64, :])
            lm.fence_proxy()
            lm.arrive(c_empty, iter=t)
            lm.binary(acc, acc, c_r, op="add")
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_d[s], acc)
            lm.fence_proxy()
            smem_d.tma_store(D, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
