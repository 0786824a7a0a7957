# Ping-pong GEMM with a 128x208 tile per consumer warpgroup (issue 13, helper
# pp2): sm90_pingpong_128x176.cake's reasoning (wave quantization of a
# persistent ping-pong CTA) with the widest tile whose two halves fit the
# staging budget: at 4096^3 32 x 20 = 640 tiles, 4.85 per SM, 5 x 1.625 =
# 8.125 units of 128x128 per SM (cooperative 128x256: 8; 128x192: 9), and
# 4 % fewer L2->SM bytes per FLOP than 128x192; at 8192^3 64 x 40 = 2560
# tiles, 20 per SM at most (32.5 units; 128x192: 31.5). 208 accumulator
# registers per thread under setmaxnreg 240 leave 32 for the rest.
# Epilogue: each consumer owns one 128x104 staging slot (208-byte rows)
# and stores its tile in two halves.
# smem: A 4x16K + B 4x26K + C 2x26K = 225280 B.  regs: 128x24 + 256x240.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong_128x208(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                               M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(225280)
    smem_a = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(208, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=172032, shape=(128, 104),  dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(128, 208), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    tiles_n   = lm.cdiv(N, 208)
    num_tiles = tiles_m * tiles_n
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 208
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
            n_blk    = (in_group // group_m) * 208
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
            # epilogue overlaps the other warpgroup's mainloop: two 104-column
            # halves through this consumer's one staging slot
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 0:104])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=lm.instance())
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 104:208])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk + 104), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
