# Blackwell persistent GEMM (CUTLASS sm100 layout: TMA warp, MMA, epilogue
# warpgroup, 2-stage TMEM accumulator ring) whose K loop is split between
# TWO MMA warps that accumulate into the SAME TMEM columns: mma_lo issues
# k-blocks [0, kh), mma_hi issues [kh, k_tiles) with kh = ceil(k_tiles / 2).
# The two warps' tcgen05.mma into one accumulator are ordered by a barrier:
#  * mma_lo: waits hi_done (mma_hi issued the previous tile's k-blocks:
#    both warps consume the one smem ring, and a warp that ran a tile
#    ahead would wait a full-barrier phase two laps on, whose parity
#    matches at once) and acc_empty[t%2] (iter=t-2), runs its half with
#    init=(k == 0), releases its smem slots through tcgen05.commit, then
#    commits k_half[t%2]: the arrival comes when its MMAs completed.
#  * mma_hi: waits k_half[t%2] (the low half is in TMEM), accumulates its
#    half (init= absent: it adds to mma_lo's partial sum), arrives on
#    hi_done, then commits acc_full[t%2]. With k_tiles = 1 its loop is empty and the commit only
#    passes the accumulator on.
#  * epilogue: four single-warp instances (lane quarters), two 64-column
#    subtiles per tile (tcgen05.ld + wait::ld), acc_empty after the last
#    one; the shared staging ring as in sm100_persistent_double_tmem.cake.
# Broken forms: bugs/data.discarded-product/sm100_k_split_second_warp_init_clobbers.cake
# (mma_hi's init= resets what mma_lo added), bugs/sync.race/
# sm100_k_split_second_warp_unordered.cake (mma_hi orders itself by the
# smem ring only).
# smem: A 48K + B 48K + D 2 x 16K = 128 KiB.  TMEM: [0,128), [128,256).
# expect: pass
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
    k_half    = lm.barrier(prod=[mma_lo], cons=[mma_hi], init_count=1, pipeline=accp)
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
            lm.mma_commit(barrier=k_half, iter=t)

    with mma_hi:
        for t in lm.range(0, my_tiles):
            lm.wait(k_half, iter=t)
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
