# sm90_pingpong_128_s5.cake with the slot released one k-block later (issue 13,
# helper pingpong, session 12): slot it - 2 is released right after k-block
# it's MMAs are issued, before mma_wait(pending=1) (it - 2 retired at the
# previous iteration's wait); the last two slots after mma_wait(pending=0).
# The unclustered control of sm90_pingpong_128_cluster2_s6_late.cake
# (bench/gpu/pp3/gen.py): whether the arrive just before the next k-block's
# first wgmma costs time (docs/gpu.md "Ping-pong on 2x1 clusters with B
# multicast"). Releasing it - 1 before the wait instead is a sync.race (the
# producer's TMA overwrites a slot an MMA in flight reads): the checker finds
# it at M=129, N=129, K=65. Not timed yet.
# smem: A 5x16K + B 5x16K + C 2x32K = 224 KiB.  regs: 128x40 + 256x232.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong_128_s5_late(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                           M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(229376)
    smem_a = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=5, swizzle="128B")
    smem_b = pool.view(offset=81920,  shape=(128, 64),  dtype=lm.bf16, stages=5, swizzle="128B")
    smem_c = pool.view(offset=163840, shape=(128, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=5)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    tiles_n   = lm.cdiv(N, 128)
    num_tiles = tiles_m * tiles_n
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 5)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        for t in lm.range(lm.instance(), my_tiles, 2):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 128
            if t > 0:
                lm.wait(order, stage=lm.instance())
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                if k > 1:
                    lm.arrive(empty, iter=it - 2)
                lm.mma_wait(pending=1)
            lm.arrive(order, stage=1 - lm.instance())
            lm.mma_wait(pending=0)
            if k_tiles > 1:
                lm.arrive(empty, iter=t * k_tiles + k_tiles - 2)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)
            # epilogue overlaps the other warpgroup's mainloop
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
