# FIXED form of tirx_gdn_cp_xy_tmem_load_unwaited_handoff.cake
# (mlc-ai/TIRx-kernels PR #53, third item): warp group 0 waits for its
# tcgen05.ld (tcgen05.wait::ld) before the arrive that hands the XY columns
# back to the MMA warp.
# expect: pass
@cake.schedule(target="sm_100a")
def tirx_gdn_cp_xy_tmem_load_unwaited_handoff_fixed(lm, X: LM.tma2d, Y: LM.tma2d, O: LM.gmem, n_c: LM.i32):
    lm.assume(n_c >= 1)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_y = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    xy     = lm.tmem(cols=448, width=64, shape=(128, 64), dtype=lm.f32)
    xy_r   = lm.regs(shape=(128, 64), dtype=lm.f32)

    wg0  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[11])
    load = lm.role(warps=[10])

    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    xy_full  = lm.barrier(count=1, prod=[mma], cons=[wg0], init_count=1)
    xy_empty = lm.barrier(count=1, prod=[wg0], cons=[mma], init_count=1)

    h = lm.block_idx(0) * 64

    with load:
        for c in lm.range(0, n_c):
            lm.wait(empty, iter=c - 2)
            smem_x.tma_load(X, coords=(c * 128, 0), iter=c, barrier=full)
            smem_y.tma_load(Y, coords=(h, 0), iter=c, barrier=full)

    with mma:
        for c in lm.range(0, n_c):
            lm.wait(full, iter=c)
            lm.wait(xy_empty, iter=c - 1)
            lm.mma(xy, smem_x[c], smem_y[c], init=True)
            lm.mma_commit(barrier=empty, iter=c)
            lm.mma_commit(barrier=xy_full, iter=c)

    with wg0:
        for c in lm.range(0, n_c):
            lm.wait(xy_full, iter=c)
            lm.tmem_load(xy_r, xy)
            lm.tmem_load_wait()
            lm.arrive(xy_empty, iter=c)                                  # hands the columns back
            lm.copy(O, xy_r, coords=(c * 128, h))
