# Broken twin of corpus/gemm/sm90_cooperative_shared_store_pipeline.cake
# (CUTLASS sm90 cooperative TMA store epilogue): the synchronize() after
# the issuing warpgroup's producer_acquire (tma_store_wait<StagesD - 1>) is
# left out for the first subtile, so warpgroup 1 can write its half of D
# buffer 2t while the TMA store of the previous tile's subtile 0, issued by
# warpgroup 0, still reads that buffer.  One edit: that lm.sync(epi) removed.
# expect: sync.race
@cake.schedule(target="sm_90a")
def gemm_sm90_cooperative_store_pipeline(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d,
                                         M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_d = pool.view(offset=131072, shape=(128, 64), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 64),  dtype=lm.bf16)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)
    epi   = lm.named_barrier(roles=[consumers])

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
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        w  = lm.instance()
        m0 = 64 * w
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
            # subtile 0 (accumulator columns 0..63) into buffer 2t
            if w == 0:
                lm.tma_store_wait(pending=1)
            lm.copy(out, acc[:, 0:64])
            lm.copy(smem_d[2 * t][m0:m0 + 64, :], out)  # expect-error: sync.race
            lm.fence_proxy()
            lm.sync(epi)
            if w == 0:
                smem_d.tma_store(D, coords=(m_blk, n_blk), iter=2 * t)  # expect-error: sync.race
                lm.tma_store_commit()
            # subtile 1 (columns 64..127) into buffer 2t + 1
            if w == 0:
                lm.tma_store_wait(pending=1)
            lm.sync(epi)
            lm.copy(out, acc[:, 64:128])
            lm.copy(smem_d[2 * t + 1][m0:m0 + 64, :], out)
            lm.fence_proxy()
            lm.sync(epi)
            if w == 0:
                smem_d.tma_store(D, coords=(m_blk, n_blk + 64), iter=2 * t + 1)
                lm.tma_store_commit()
        if w == 0:
            lm.tma_store_wait(pending=0)
