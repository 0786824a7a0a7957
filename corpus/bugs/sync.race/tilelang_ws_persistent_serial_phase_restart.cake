# BUG (sync.race): TileLang's Hopper warp specialization under an outer
# persistent loop, as reported on tile-ai/tilelang PR #2674 ("Fix pipeline
# replacement under persistent T.serial", review comment of 2026-07-19).
# With the fix's first revision the WS pass descends into the persistent
# For, but it does not carry the mbarrier stage and phase across the outer
# loop: every tile restarts the K pipeline at stage k % num_stages with
# parity (k / num_stages) % 2.  The kernel is correct only when the grid
# covers all tiles in one wave or when the K trip count is a multiple of
# 2 * num_stages; otherwise tiles of the 2nd and later waves are wrong (or
# the launch fails).
# Written in CAKE IR with stage= and explicit phase numbers, as the
# generated code indexes its barriers: the producer's empty wait uses phase
# k // 3 - 1 (the parity trick for the first lap), the consumer's full wait
# phase k // 3, both restarting at every tile.  One TMA producer warp, one
# consumer warpgroup, a 3-stage ring, a persistent tile loop of my_tiles
# tiles, an st.shared + TMA store epilogue.
# Fix: tilelang_ws_persistent_serial_phase_restart_fixed.cake (the running
# iteration t * k_tiles + k across tiles).
# expect: sync.race
# may-also: sync.stale-phase sync.lost-phase data.stale-read sync.arrival-overflow sync.arrival-underflow sync.deadlock
@cake.schedule(target="sm_90a")
def tilelang_ws_persistent_serial_phase_restart(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.f16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 128), dtype=lm.f16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer = lm.role(warps=[4])
    consumer = lm.role(warps=[0, 1, 2, 3])
    full  = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)

    k_tiles  = lm.cdiv(K, 64)
    my_tiles = lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, k_tiles):
                lm.wait(empty, stage=k % 3, phase=k // 3 - 1)
                smem_a.tma_load(A, coords=(tile * 64, k * 64), stage=k % 3, barrier=full)    # expect-error: sync.race
                smem_b.tma_load(B, coords=(0, k * 64), stage=k % 3, barrier=full)            # expect-error: sync.race

    with consumer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, k_tiles):
                lm.wait(full, stage=k % 3, phase=k // 3)
                lm.mma(acc, smem_a[k % 3], smem_b[k % 3], init=(k == 0))                     # expect-error: sync.race
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=k % 3)                                                 # expect-error: sync.race
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(tile * 64, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
