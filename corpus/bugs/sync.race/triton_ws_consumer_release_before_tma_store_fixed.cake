# FIXED: triton_ws_consumer_release_before_tma_store.cake as
# facebookexperimental/triton PR #430 fixes it: barrier insertion tracks TMA
# stores, so the TMA store that reads the channel buffer counts as a
# consumer of it and the consumer release is placed after the store has
# completed (its bulk group waited), not before it is issued.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_ws_consumer_release_after_tma_store(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                               M: LM.i32, N: LM.i32, K: LM.i32):
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=98304,  shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    epi  = lm.role(warps=[1])
    mma  = lm.role(warps=[4, 5, 6, 7])

    pipe    = lm.pipeline(stages=4)
    full    = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    chan    = lm.pipeline(stages=2)
    c_full  = lm.barrier(prod=[mma], cons=[epi], init_count=1, pipeline=chan)
    c_empty = lm.barrier(prod=[epi], cons=[mma], init_count=1, pipeline=chan)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 64)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, my_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.wait(c_empty, iter=t - 2)
            lm.copy(smem_c[t], acc)
            lm.fence_proxy()
            lm.arrive(c_full, iter=t)

    with epi:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            lm.wait(c_full, iter=t)
            smem_c.tma_store(C, coords=(m_blk, n_blk), iter=t)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(c_empty, iter=t)
