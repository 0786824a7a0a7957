# Ping-pong GEMM with a 128x176 tile per consumer warpgroup (issue 13, helper
# pp2): sm90_pingpong_128x192_r240.cake with a narrower tile, against wave
# quantization. A persistent ping-pong CTA runs its tiles' mainloops one after
# the other on the SM's tensor pipe, so its time is (tiles it owns) x (one
# tile's mainloop). At 4096^3 the 128x192 tile makes 32 x 22 = 704 tiles over
# 132 SMs: 5.33 on average, 6 on 44 SMs; 6 x 1.5 = 9 units of 128x128 per SM
# where the cooperative 128x256 needs 4 x 2 = 8 (512 tiles, 3.88 per SM).
# 128x176 makes 32 x 24 = 768 tiles: 5.82 per SM, 6 x 1.375 = 8.25 units; at
# 8192^3 64 x 47 = 3008 tiles, 23 per SM at most (31.6 units; 128x192: 31.5).
# Same synchronisation as sm90_pingpong_128x192_r240 (order barrier arrived
# once the last k-block's MMAs are issued, one wgmma group in flight).
# Epilogue: each consumer owns one 128x88 staging slot (176-byte rows:
# the fragment stores of a warp fall in 32 distinct banks) and stores its
# tile in two halves, waiting for the first half's TMA store to have read the
# slot before rewriting it.
# smem: A 4x16K + B 4x22K + C 2x22K = 200704 B.  regs: 128x24 + 256x240.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong_128x176(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                               M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(200704)
    smem_a = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(176, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=155648, shape=(128, 88),  dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(128, 176), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    tiles_n   = lm.cdiv(N, 176)
    num_tiles = tiles_m * tiles_n
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 176
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        for t in lm.range(lm.instance(), my_tiles, 2):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 176
            if t > 0:
                lm.wait(order, stage=lm.instance())
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k > 0:
                    lm.arrive(empty, iter=it - 1)
            lm.arrive(order, stage=1 - lm.instance())
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)
            # epilogue overlaps the other warpgroup's mainloop: two 88-column
            # halves through this consumer's one staging slot
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 0:88])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=lm.instance())
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 88:176])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + 88), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
