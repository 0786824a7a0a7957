# Fixed: bench/gpu/schedules/sm90_pingpong_128x192_tail64.cake as it is
# (a wgmma into the column slice acc[:, 0:64] for the 128x64 tail tiles,
# retired by mma_wait(pending=0) before the epilogue reads the slice).
# expect: pass
@cake.schedule(target="sm_90a")
def sm90_pingpong_tail64_copy_before_retire_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                               M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(229376)
    smem_a = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(192, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=163840, shape=(128, 64),  dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(128, 192), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    big_n     = max(N - 256, 0) // 192
    tail0     = big_n * 192
    small_n   = lm.cdiv(N - tail0, 64)
    bn1       = max(big_n, 1)
    num_big   = tiles_m * big_n
    num_tiles = num_big + tiles_m * small_n
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))
    my_big    = lm.cdiv(max(num_big - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            big      = tile < num_big
            first_m  = (tile // (8 * bn1)) * 8
            group_m  = max(min(tiles_m - first_m, 8), 1)
            in_group = tile % (8 * bn1)
            small    = max(tile - num_big, 0)
            m_blk    = big * (first_m + in_group % group_m) * 128 + (1 - big) * (small % tiles_m) * 128
            n_blk    = big * (in_group // group_m) * 192 + (1 - big) * (tail0 + (small // tiles_m) * 64)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        # the consumer's 128x192 tiles (t < my_big), then its 128x64 tiles:
        # two loops, so that no wgmma sits under a branch (ptxas serialises
        # every wgmma of the kernel when one does, C7520)
        for t in lm.range(lm.instance(), my_big, 2):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * bn1)) * 8
            group_m  = max(min(tiles_m - first_m, 8), 1)
            in_group = tile % (8 * bn1)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 192
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
            # epilogue overlaps the other warpgroup's mainloop
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[2 * lm.instance()], acc[:, 0:64])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=2 * lm.instance())
            lm.tma_store_commit()
            lm.copy(smem_c[2 * lm.instance() + 1], acc[:, 64:128])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + 64), stage=2 * lm.instance() + 1)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[2 * lm.instance()], acc[:, 128:192])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + 128), stage=2 * lm.instance())
            lm.tma_store_commit()
        for t in lm.range(my_big + (lm.instance() - my_big) % 2, my_tiles, 2):
            small = lm.block_idx(0) + t * lm.grid_dim(0) - num_big
            m_blk = (small % tiles_m) * 128
            n_blk = tail0 + (small // tiles_m) * 64
            if t > 0:
                lm.wait(order, stage=lm.instance())
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc[:, 0:64], smem_a[it], smem_b[it][0:64, :], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k > 0:
                    lm.arrive(empty, iter=it - 1)
            lm.arrive(order, stage=1 - lm.instance())
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[2 * lm.instance()], acc[:, 0:64])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=2 * lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
