# BUG (sync.deadlock): Dao-AILab/quack PR #146 ("[Gemm] HotFix: Fix
# epi_load_barrier participant count when num_ab_load_warps > 1 in SM100").
# quack's SM100 GEMM (quack/gemm_sm100.py) orders the epilogue's C load
# behind the first A/B loads with the EpilogueLoad named barrier: on the
# first tile every A/B load warp calls epi_load_barrier.arrive() after
# issuing its initial TMA loads, and the epilogue load warp calls
# arrive_and_wait() before it TMA-loads C.  The barrier was built with
# num_threads = 2 * WARP_SIZE (one A/B load warp + the epilogue load warp),
# right when num_ab_load_warps == 1, but with gather_A the kernel has four
# A/B load warps and all of them arrive: the 128 + 32 arrivals complete
# 64-thread generations among themselves, and the epilogue load warp's
# arrive_and_wait can land in a generation nobody else reaches - it hangs
# ("arrive_and_wait() on the epilogue load warp can hang indefinitely").
# Fix: num_threads = (num_ab_load_warps + 1) * WARP_SIZE
# (quack_sm100_epi_load_barrier_two_warps_fixed.cake).
# Written in CAKE IR: a named barrier's thread count is derived from its
# roles, so the hard-coded 2 * WARP_SIZE is the barrier over the FIRST A/B
# load warp and the epilogue load warp; the four A/B load warps are
# therefore two roles here (ab_lead = warp 6, ab_rest = warps 7-9, one warp
# per instance), with the same body.  One output tile (the first tile is
# the only one), 2-stage ring, 128x128x64 bf16; each A/B load warp loads its
# 32-row band of A and of B (TMA stands in for gather_A's cp.async rows of
# A), so `full` expects four expect_tx arrivals per phase; MMA warp 4
# (tcgen05 into TMEM, commits release `empty` and publish `acc_full`);
# epilogue load warp 5 loads C; epilogue warps 0-3 add C and TMA-store D.
# Left out: the tile scheduler, the epilogue's sub-tiling, the C ring.
# expect: sync.deadlock
@cake.schedule(target="sm_100a")
def quack_sm100_epi_load_barrier_two_warps(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, D: LM.tma2d,
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
    ab_lead  = lm.role(warps=[6])
    ab_rest  = lm.role(warps=[7, 8, 9], group=1)

    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[ab_lead, ab_rest], cons=[mma], init_count=4, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[ab_lead, ab_rest], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    c_full   = lm.barrier(count=1, prod=[epi_load], cons=[epi], init_count=1)
    # EpilogueLoad: num_threads = 2 * WARP_SIZE (BUG)
    epi_load_bar = lm.named_barrier(roles=[ab_lead, epi_load])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with ab_lead:
        w = 0
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            a_band[4 * (k % 2) + w].tma_load(A, coords=(m_blk + 32 * w, k * 64), iter=k, barrier=full)
            b_band[4 * (k % 2) + w].tma_load(B, coords=(n_blk + 32 * w, k * 64), iter=k, barrier=full)
            if k == 0:
                lm.bar_arrive(epi_load_bar)        # first tile: initial loads issued

    with ab_rest:
        w = lm.instance() + 1
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            a_band[4 * (k % 2) + w].tma_load(A, coords=(m_blk + 32 * w, k * 64), iter=k, barrier=full)
            b_band[4 * (k % 2) + w].tma_load(B, coords=(n_blk + 32 * w, k * 64), iter=k, barrier=full)
            if k == 0:
                lm.bar_arrive(epi_load_bar)                                   # expect-error: sync.deadlock

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi_load:
        lm.sync(epi_load_bar)                       # arrive_and_wait         # expect-error: sync.deadlock
        smem_c.tma_load(C, coords=(m_blk, n_blk), stage=0, barrier=c_full)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.wait(c_full, stage=0)                                              # expect-error: sync.deadlock
        for h in lm.range(0, 2):                   # two 64-column epilogue subtiles
            lm.copy(acc_h, tmem_acc[:, 64 * h:64 * h + 64])
            lm.copy(c_h, smem_c[0][:, 64 * h:64 * h + 64])
            lm.binary(acc_h, acc_h, c_h, op="add")
            lm.copy(smem_d[0][:, 64 * h:64 * h + 64], acc_h)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
