# BUG (sync.race): corpus/gemm/sm100_persistent_two_mma_warps_k_split.cake
# (two MMA warps accumulating one TMEM accumulator, each over half of the
# K loop) without the k_half handoff: mma_hi starts its half as soon as its
# smem operands land, which orders it after the loads, not after mma_lo's
# tcgen05.mma, and commits acc_full, so the epilogue's tcgen05.ld reads
# columns mma_lo's MMAs still write (the two warps' accumulations into one
# column are unordered too). The ring's consumers are no longer in order
# either (sync.stale-phase at other sizes).
# Fix: corpus/gemm/sm100_persistent_two_mma_warps_k_split.cake (mma_lo
# commits k_half, mma_hi waits it before its first MMA).
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase
@cake.schedule(target="sm_100a")
def gemm_sm100_two_mma_warps_k_split(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d,
                                     M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool      = lm.smem(131072)
    smem_a    = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b    = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_d    = pool.view(offset=98304, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc0 = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_acc1 = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    acc_q     = lm.regs(shape=(32, 64), dtype=lm.f32)

    epi    = lm.role(warps=[0, 1, 2, 3], group=1)
    mma_lo = lm.role(warps=[4])
    load   = lm.role(warps=[5])
    mma_hi = lm.role(warps=[6])

    pipe      = lm.pipeline(stages=3)
    full      = lm.barrier(prod=[load], cons=[mma_lo, mma_hi], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma_lo, mma_hi], cons=[load], init_count=1, pipeline=pipe)
    accp      = lm.pipeline(stages=2)
    hi_done   = lm.barrier(prod=[mma_hi], cons=[mma_lo], init_count=1, pipeline=accp)
    acc_full  = lm.barrier(prod=[mma_hi], cons=[epi], init_count=1, pipeline=accp)
    acc_empty = lm.barrier(prod=[epi], cons=[mma_lo], init_count=4, pipeline=accp)
    epi_sync  = lm.named_barrier(roles=[epi])

    k_tiles   = lm.cdiv(K, 64)
    kh        = (k_tiles + 1) // 2
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
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with mma_lo:
        for t in lm.range(0, my_tiles):
            lm.wait(hi_done, iter=t - 1)
            lm.wait(acc_empty, iter=t - 2)
            for k in lm.range(0, kh):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                if t % 2 == 0:
                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))
                else:
                    lm.mma(tmem_acc1, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)

    with mma_hi:
        for t in lm.range(0, my_tiles):
            for k in lm.range(kh, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                if t % 2 == 0:
                    lm.mma(tmem_acc0, smem_a[it], smem_b[it])
                else:
                    lm.mma(tmem_acc1, smem_a[it], smem_b[it])
                lm.mma_commit(barrier=empty, iter=it)
            lm.arrive(hi_done, iter=t)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        q = 32 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            lm.wait(acc_full, iter=t)
            for h in lm.range(0, 2):
                if t % 2 == 0:
                    lm.tmem_load(acc_q, tmem_acc0[q:q + 32, h * 64:h * 64 + 64])
                else:
                    lm.tmem_load(acc_q, tmem_acc1[q:q + 32, h * 64:h * 64 + 64])
                lm.tmem_load_wait()
                if h == 1:
                    lm.arrive(acc_empty, iter=t)
                if lm.instance() == 0:
                    lm.tma_store_wait(pending=1)
                lm.sync(epi_sync)
                lm.copy(smem_d[h][q:q + 32, :], acc_q)
                lm.fence_proxy()
                lm.sync(epi_sync)
                if lm.instance() == 0:
                    smem_d.tma_store(D, coords=(m_blk, n_blk + h * 64), stage=h)
                    lm.tma_store_commit()
        if lm.instance() == 0:
            lm.tma_store_wait(pending=0)
