# corpus/gemm/sm90_persistent_ws.cake as a CUDA persistent kernel is usually written: the tile
# loop strides by the grid (lm.range(lm.block_idx(0), num_tiles, lm.grid_dim(0)), a symbolic
# step: docs/semantics.md "Loops with a symbolic step"), the CTA's tile count recovered by
# division, the flat ring iteration as (t + 1) * k_tiles - k_tiles + k, the producer's first
# lap skipped by a guard written with `or`, the store slot as t % 2 + 2 * lm.instance().
# Helper respell44 (session 44, bench/respell/good/sm90_persistent_ws_r2.cake). Proved since
# session 45 (helper gs45): the first-lap guard is false only where it - 4 < 0, so the front end
# drops it, and the proof reads the ring index by its canonical form t * k_tiles + k (docs/z3.md
# "The grid-strided persistent loop proved").
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_persistent_ws(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                            M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(196608)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)

    with producer:
        for tile in lm.range(lm.block_idx(0), num_tiles, lm.grid_dim(0)):
            t     = (tile - lm.block_idx(0)) // lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = (t + 1) * k_tiles - k_tiles + k
                if t > 0 or k >= 4:
                    lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for tile in lm.range(lm.block_idx(0), num_tiles, lm.grid_dim(0)):
            t     = (tile - lm.block_idx(0)) // lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = (t + 1) * k_tiles - k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            s = t % 2 + 2 * lm.instance()
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
