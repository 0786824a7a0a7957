# RESPELLING of corpus/bugs/sync.async-at-exit/cutlass_wgmma_tma_tutorial_drain_load_fixed.cake
# (NVIDIA/cutlass issue #2944): as _r1, the guarded refill spelled as two
# loops: a steady-state loop that refills and a drain loop over the last
# three tiles that does not.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_device_fixed(lm, tma_a: LM.tma2d, tma_b: LM.tma2d, k_tile_count: LM.i32):
    lm.assume(k_tile_count > 2)
    smem = lm.smem(98304)
    sB   = smem.view(offset=49152, shape=(128, 64), dtype=lm.f16, stage=3, swizzle="128B")
    sA   = smem.view(offset=0,     shape=(128, 64), dtype=lm.f16, stage=3, swizzle="128B")
    accum = lm.regs(shape=(128, 128), dtype=lm.f32)
    threads = lm.role(warps=[0, 1, 2, 3])
    producer_mbar = lm.barrier(count=3, prod=[threads], cons=[threads], init_count=1)
    consumer_mbar = lm.barrier(count=3, prod=[threads], cons=[threads], init_count=1)
    m0 = 128 * lm.block_idx(0)
    n0 = 128 * lm.block_idx(1)
    with threads:
        for kc in lm.range(0, 192, 64):
            sB.tma_load(tma_b, coords=(n0, kc), iter=kc // 64, barrier=producer_mbar)
            sA.tma_load(tma_a, coords=(m0, kc), iter=kc // 64, barrier=producer_mbar)
        for k in lm.range(0, k_tile_count - 3):
            lm.wait(producer_mbar, iter=k)
            lm.mma(accum, sA[k], sB[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(consumer_mbar, iter=k)
            lm.wait(consumer_mbar, iter=k)
            sB.tma_load(tma_b, coords=(n0, 64 * k + 192), iter=k + 3, barrier=producer_mbar)
            sA.tma_load(tma_a, coords=(m0, 64 * k + 192), iter=k + 3, barrier=producer_mbar)
        for k in lm.range(k_tile_count - 3, k_tile_count):
            lm.wait(producer_mbar, iter=k)
            lm.mma(accum, sA[k], sB[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(consumer_mbar, iter=k)
