# FIXED: quack_sm100_epi_load_barrier_two_warps.cake as Dao-AILab/quack
# PR #146 fixes it: the EpilogueLoad barrier counts every A/B load warp plus
# the epilogue load warp, num_threads = (num_ab_load_warps + 1) * WARP_SIZE.
# In CAKE IR the count follows from the roles: the barrier is over the
# whole A/B load role (four one-warp instances) and the epilogue load warp,
# so the four arrive()s and the arrive_and_wait() make one generation.
# expect: pass
@cake.schedule(target="sm_100a")
def quack_sm100_epi_load_barrier_all_ab_warps(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, D: LM.tma2d,
                                              K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(131072)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    a_band   = pool.view(offset=0,     shape=(32, 64),  dtype=lm.bf16, stages=8, swizzle="128B")
    smem_b   = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    b_band   = pool.view(offset=32768, shape=(32, 64),  dtype=lm.bf16, stages=8, swizzle="128B")
    smem_c   = pool.view(offset=65536, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_d   = pool.view(offset=98304, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_h    = lm.regs(shape=(128, 64), dtype=lm.f32)
    c_h      = lm.regs(shape=(128, 64), dtype=lm.f32)

    epi      = lm.role(warps=[0, 1, 2, 3])
    mma      = lm.role(warps=[4])
    epi_load = lm.role(warps=[5])
    ab_load  = lm.role(warps=[6, 7, 8, 9], group=1)

    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[ab_load], cons=[mma], init_count=4, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[ab_load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    c_full   = lm.barrier(count=1, prod=[epi_load], cons=[epi], init_count=1)
    # EpilogueLoad: num_threads = (num_ab_load_warps + 1) * WARP_SIZE
    epi_load_bar = lm.named_barrier(roles=[ab_load, epi_load])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with ab_load:
        w = lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            a_band[4 * (k % 2) + w].tma_load(A, coords=(m_blk + 32 * w, k * 64), iter=k, barrier=full)
            b_band[4 * (k % 2) + w].tma_load(B, coords=(n_blk + 32 * w, k * 64), iter=k, barrier=full)
            if k == 0:
                lm.bar_arrive(epi_load_bar)        # first tile: initial loads issued

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi_load:
        lm.sync(epi_load_bar)                       # arrive_and_wait
        smem_c.tma_load(C, coords=(m_blk, n_blk), stage=0, barrier=c_full)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.wait(c_full, stage=0)
        for h in lm.range(0, 2):                   # two 64-column epilogue subtiles
            lm.copy(acc_h, tmem_acc[:, 64 * h:64 * h + 64])
            lm.copy(c_h, smem_c[0][:, 64 * h:64 * h + 64])
            lm.binary(acc_h, acc_h, c_h, op="add")
            lm.copy(smem_d[0][:, 64 * h:64 * h + 64], acc_h)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
