# FIXED form of tilelang_ws_persistent_serial_phase_restart.cake
# (tile-ai/tilelang PR #2674, the reconciliation the review asked for):
# stage and phase follow the running iteration it = t * k_tiles + k, so
# the pipeline state carries over from one persistent tile to the next.
# expect: pass
@cake.schedule(target="sm_90a")
def tilelang_ws_persistent_serial_phase_restart_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
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
                it = t * k_tiles + k
                lm.wait(empty, stage=it % 3, phase=it // 3 - 1)
                smem_a.tma_load(A, coords=(tile * 64, k * 64), stage=it % 3, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), stage=it % 3, barrier=full)

    with consumer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, stage=it % 3, phase=it // 3)
                lm.mma(acc, smem_a[it % 3], smem_b[it % 3], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=it % 3)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(tile * 64, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
