# FIXED form of te_rht_amax_shmem_load_then_tma_refill.cake
# (NVIDIA/TransformerEngine PR #2695): a proxy fence (fence.proxy.async)
# between the generic shared loads of a stage and the TMA copy that
# refills it.
# expect: pass
@cake.schedule(target="sm_90a")
def te_rht_amax_shmem_load_then_tma_refill_fixed(lm, X: LM.tma2d, Amax: LM.gmem, n_tiles: LM.i32):
    lm.assume(n_tiles >= 2)
    pool  = lm.smem(32768)
    stage = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x     = lm.regs(shape=(64, 64), dtype=lm.f32)
    amax  = lm.regs(shape=(64, 64), dtype=lm.f32)

    work = lm.role(warps=[0, 1, 2, 3])
    full = lm.barrier(count=2, prod=[work], cons=[work], init_count=1)

    row = lm.block_idx(0) * 64 * n_tiles
    with work:
        lm.fill(amax, 0.0)
        stage.tma_load(X, coords=(row, 0), iter=0, barrier=full)
        stage.tma_load(X, coords=(row + 64, 0), iter=1, barrier=full)
        for k in lm.range(0, n_tiles):
            lm.wait(full, iter=k)
            lm.copy(x, stage[k])
            lm.binary(amax, amax, x, op="max")
            lm.fence_proxy()
            if k + 2 < n_tiles:
                stage.tma_load(X, coords=(row + (k + 2) * 64, 0), iter=k + 2, barrier=full)
        lm.copy(Amax, amax, coords=(lm.block_idx(0) * 64, 0))
