# BUG (data.discarded-product), a mutant of
# gemm/sm90_fp8_promotion_interval_persistent.cake (CUTLASS's FP8 two-level
# accumulation in the cooperative kernel's tile loop): the promotion guard
# off by one, `k % 4 == 0` for `(k + 1) % 4 == 0`. The promotion then runs
# right after the interval's first wgmma, and the next interval's first
# wgmma (ScaleOut::Zero, init=(k % 4 == 0)) clears the three products
# added since: every interval but its first k-block is lost (at the tile's
# end too where the k-block count is a multiple of 4: the residue
# promotion is skipped there and the next tile clears them).
# Fix: gemm/sm90_fp8_promotion_interval_persistent.cake.
# expect: data.discarded-product
@cake.schedule(target="sm_90a")
def cutlass_sm90_fp8_promotion_guard_off_by_one(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                     M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(196608)
    smem_a = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128),  dtype=lm.bf16, stages=4)
    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 128)
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
                smem_a.tma_load(A, coords=(m_blk, k * 128), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 128), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            lm.fill(acc, 0.0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(tmp, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k % 4 == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
                if k % 4 == 0:
                    lm.binary(acc, acc, tmp, op="add")
            if k_tiles % 4 != 0:
                lm.binary(acc, acc, tmp, op="add")
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
