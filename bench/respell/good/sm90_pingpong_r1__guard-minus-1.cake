# respells: corpus/mutants/gemm/sm90_pingpong/guard-minus-1-L61.cake
# change: each consumer's tiles as a loop over its rounds r (t = 2 * r + wg, the round count
# lm.cdiv(max(my_tiles - wg, 0), 2)), every ring op with stage=it % 4 and an explicit phase
# (the producer's first lap a guard), the order barrier's wait with phase=(t - 1) // 2 under
# `t != 0`, its arrive with stage=(wg + 1) % 2, operands smem_a[it % 4].
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                       M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=98304, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 64)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                if it >= 4:
                    lm.wait(empty, stage=it % 4, phase=it // 4 - 1)
                smem_a.tma_load(A, coords=(m_blk, k * 64), stage=it % 4, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), stage=it % 4, barrier=full)

    with consumers:
        wg = lm.instance()
        for r in lm.range(0, lm.cdiv(max(my_tiles - wg, 0), 2)):
            t     = 2 * r + wg
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            if t != -1:
                lm.wait(order, stage=wg, phase=(t - 1) // 2 + 1 - wg)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, stage=it % 4, phase=it // 4)
                lm.mma(acc, smem_a[it % 4], smem_b[it % 4], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=it % 4, phase=it // 4)
            lm.arrive(order, stage=(wg + 1) % 2)
            # epilogue overlaps the other warpgroup's mainloop
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[wg], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=wg)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
