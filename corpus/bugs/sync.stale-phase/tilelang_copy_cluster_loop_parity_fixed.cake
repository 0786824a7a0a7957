# FIXED form of tilelang_copy_cluster_loop_parity.cake (tile-ai/tilelang
# issue #2927): the wait after T.copy_cluster must follow the phase history
# of the barrier it was given, not the loop iteration.  Each of the four
# barriers completes once, so every wait is that slot's first: written
# with stage=s and no phase= (IR.md: the phase is the number of earlier
# waits by this instance on that slot, here 0).
# expect: pass
@cake.schedule(target="sm_90a")
def tilelang_copy_cluster_loop_parity_fixed(lm, X: LM.tma2d, Y: LM.tma2d):
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=4)
    smem_y = pool.view(offset=32768, shape=(64, 64), dtype=lm.f32)
    frag   = lm.regs(shape=(64, 64), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg  = lm.role(warps=[0, 1, 2, 3])
    bar = lm.barrier(count=4, prod=[wg], cons=[wg], init_count=1)

    row = lm.block_idx(0) * 64

    with wg:
        lm.fill(acc, 0.0)
        for s in lm.range(0, 4):
            smem_x.tma_load(X, coords=(row, s * 64), stage=s, barrier=bar)
            lm.wait(bar, stage=s)
            lm.copy(frag, smem_x[s])
            lm.binary(acc, acc, frag, op="add")
        lm.copy(smem_y[0], acc)
        lm.fence_proxy()
        smem_y.tma_store(Y, coords=(row, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
