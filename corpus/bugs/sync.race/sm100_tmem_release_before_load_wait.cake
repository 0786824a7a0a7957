# BUG variant of a persistent Blackwell GEMM with a one-slot accumulator pipeline whose
# epilogue moves TMEM to registers with an asynchronous tcgen05.ld
# (lm.tmem_load) and waits for it (lm.tmem_load_wait, tcgen05.wait::ld)
# before it releases the accumulator (acc_empty) to the MMA warp's next
# tile.
# BUG: the epilogue releases the accumulator (arrive on acc_empty) before
# tcgen05.wait::ld, so the MMA warp's next tile may overwrite TMEM columns
# that the tcgen05.ld is still reading.
# (Fixed: sm100_tmem_release_before_load_wait_fixed.cake.)
# expect: sync.race
@cake.schedule(target="sm_100a")
def gemm_sm100_persistent_acc_pipeline(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                       M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, my_tiles):
            lm.wait(acc_empty, iter=t - 1)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(tmem_acc, smem_a[it], smem_b[it], init=(k == 0))  # expect-error: sync.race
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            lm.wait(acc_full, iter=t)
            lm.tmem_load(acc_r, tmem_acc)
            lm.arrive(acc_empty, iter=t)
            lm.tmem_load_wait()
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[0], acc_r)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
