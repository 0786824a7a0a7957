# BUG (sync.race): triton-lang/triton PR #2146 ("[OPTIMIZER] Fix Warp
# Specialized kernel launch failure", 2023-08-21).  The Hopper warp-
# specialized persistent matmul runs, in each warp group, a wave loop
# around the K loop and indexes its ring with
#     idx = wave * num_inner_loop_steps;  for k_tile in 0..num_k_tiles: ... idx++
# (producer: wait EB[idx], TMA W, arrive FB[idx]; consumer: wait FB[idx],
# read R, arrive EB[idx]).  When GEMM K is smaller than the K tile,
# num_inner_loop_steps was 0 while the K loop still ran one tile, so every
# wave used buffer and mbarrier 0 with the same phase: the order
# W0 -> W1 -> R0 -> R1 became possible (the next wave's TMA load overwrites
# slot 0 while the consumer still multiplies the previous wave's tile, and
# the consumer's wait on FB[0] phase 0 passes on the old completion).  The
# PR makes the step count one in that case.
# Modelled: the PR shows only the pseudo-code above; num_inner_loop_steps
# is written as the floor K // 64 (0 for K < 64) and num_k_tiles as the
# trip count cdiv(K, 64); a 3-slot ring (iter = idx), one TMA producer
# warp, one consumer warpgroup (wgmma, waited before the release), a
# persistent loop of my_tiles tiles with a TMA-store epilogue.  The lemma
# K % 64 == 0 or K < 64 keeps to the shapes the PR talks about (for other
# K the floor differs from the trip count too).
# Fix: triton_ws_persistent_zero_inner_steps_small_k_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.stale-phase sync.lost-phase sync.arrival-overflow sync.arrival-underflow sync.deadlock
@cake.schedule(target="sm_90a")
def triton_ws_persistent_zero_inner_steps_small_k(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    lm.assume(K % 64 == 0 or K < 64)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.f16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 128), dtype=lm.f16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer = lm.role(warps=[4])
    consumer = lm.role(warps=[0, 1, 2, 3])
    full  = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)

    num_k_tiles = lm.cdiv(K, 64)
    num_inner_loop_steps = K // 64
    my_tiles = lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, num_k_tiles):
                idx = t * num_inner_loop_steps + k
                lm.wait(empty, iter=idx - 3)
                smem_a.tma_load(A, coords=(tile * 64, k * 64), iter=idx, barrier=full)    # expect-error: sync.race
                smem_b.tma_load(B, coords=(0, k * 64), iter=idx, barrier=full)            # expect-error: sync.race

    with consumer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, num_k_tiles):
                idx = t * num_inner_loop_steps + k
                lm.wait(full, iter=idx)
                lm.mma(acc, smem_a[idx], smem_b[idx], init=(k == 0))                      # expect-error: sync.race
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=idx)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(tile * 64, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
