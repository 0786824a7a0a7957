# respells: corpus/mutants/gemm/sm90_persistent_ws/drop-arrive-L61.cake
# change: every ring op with stage=it % 4 (implicit phases for the consumers' waits and
# releases, the producer's wait with an explicit phase under `if it >= 4`), operands named
# smem_a[it % 4], the tile's row block as tile - tiles_m * (tile // tiles_m), the store slot
# as lm.instance() * 2 + (t - 2 * (t // 2)), the consumers declared first.
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

    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)

    empty = lm.barrier(count=4, prod=[consumers], cons=[producer], init_count=2)
    full  = lm.barrier(count=4, prod=[producer], cons=[consumers], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile - tiles_m * (tile // tiles_m)) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, stage=it % 4)
                lm.mma(acc, smem_a[it % 4][m0:m0 + 64, :], smem_b[it % 4], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
            s = lm.instance() * 2 + (t - 2 * (t // 2))
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with producer:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile - tiles_m * (tile // tiles_m)) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                if it >= 4:
                    lm.wait(empty, stage=it % 4, phase=it // 4 - 1)
                smem_a.tma_load(A, coords=(m_blk, k * 64), stage=it % 4, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), stage=it % 4, barrier=full)
