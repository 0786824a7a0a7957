# BUG (sync.race): corpus/gemm/sm100_persistent_two_mma_warps_n_split.cake
# (two MMA warps, one 128-column N half each, into one TMEM accumulator
# stage of a 2-stage ring) with acc_full declared for ONE arrival, as for
# the single MMA warp the kernel was ported from (PipelineUmmaAsync's
# producer count left at 1). Each MMA warp commits acc_full when its half
# completes: the first commit completes the phase, and the epilogue's
# tcgen05.ld reads the 256 columns while the other warp's tcgen05.mma
# still writes its half; the second commit lands on the next phase.
# Fix: corpus/gemm/sm100_persistent_two_mma_warps_n_split.cake
# (acc_full init_count=2: the epilogue reads after both warps' commits).
# lower: unsupported (tcgen05.mma into column slices of one TMEM allocation, one N half per MMA warp: the lowering takes a sliced accumulator only as a column range of a 2-D register fragment)
# expect: sync.race
# may-also: sync.arrival-overflow sync.lost-phase
@cake.schedule(target="sm_100a")
def gemm_sm100_two_mma_warps_n_split(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d,
                                     M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool      = lm.smem(180224)
    smem_a    = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b    = pool.view(offset=49152,  shape=(256, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_d    = pool.view(offset=147456, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc0 = lm.tmem(cols=0,   width=256, shape=(128, 256), dtype=lm.f32)
    tmem_acc1 = lm.tmem(cols=256, width=256, shape=(128, 256), dtype=lm.f32)
    acc_q     = lm.regs(shape=(32, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4, 6], group=1)
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=3)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=2, pipeline=pipe)
    accp      = lm.pipeline(stages=2)
    acc_full  = lm.barrier(prod=[mma], cons=[epi], init_count=1, pipeline=accp)
    acc_empty = lm.barrier(prod=[epi], cons=[mma], init_count=4, pipeline=accp)
    epi_sync  = lm.named_barrier(roles=[epi])

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 256)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 256
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with mma:
        n0 = 128 * lm.instance()
        for t in lm.range(0, my_tiles):
            lm.wait(acc_empty, iter=t - 2)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                if t % 2 == 0:
                    lm.mma(tmem_acc0[0:128, n0:n0 + 128], smem_a[it], smem_b[it][n0:n0 + 128, :], init=(k == 0))
                else:
                    lm.mma(tmem_acc1[0:128, n0:n0 + 128], smem_a[it], smem_b[it][n0:n0 + 128, :], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        q = 32 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 256
            lm.wait(acc_full, iter=t)
            for h in lm.range(0, 4):
                if t % 2 == 0:
                    lm.tmem_load(acc_q, tmem_acc0[q:q + 32, h * 64:h * 64 + 64])
                else:
                    lm.tmem_load(acc_q, tmem_acc1[q:q + 32, h * 64:h * 64 + 64])
                lm.tmem_load_wait()
                if h == 3:
                    lm.arrive(acc_empty, iter=t)
                if lm.instance() == 0:
                    lm.tma_store_wait(pending=1)
                lm.sync(epi_sync)
                lm.copy(smem_d[h % 2][q:q + 32, :], acc_q)
                lm.fence_proxy()
                lm.sync(epi_sync)
                if lm.instance() == 0:
                    smem_d.tma_store(D, coords=(m_blk, n_blk + h * 64), stage=h % 2)
                    lm.tma_store_commit()
        if lm.instance() == 0:
            lm.tma_store_wait(pending=0)
