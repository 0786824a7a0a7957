# BUG (sync.race): mlc-ai/TIRx-kernels PR #53 ("Fix GDN CP and MegaMoE
# synchronization", third item: "complete the GDN XY `tcgen05.ld` before
# handing its TMEM lifetime to warp 11").  In the chunk-parallel Gated
# Delta Net prefill (gdn_cp_prefill_sm100), warp group 0 reads the XY
# accumulator out of TMEM (tcgen05.ld) and hands the columns back to the
# MMA issuer, warp 11, without `tcgen05.wait::ld` before the hand-off:
# "warp 0's TMEM read over allocation bytes [1792, 2048) remained
# outstanding as warp 11 issued an MMA write to the same bytes"
# (Racecheck `error`); restoring the wait fixes it.
# Modelled: per chunk, warp 11 computes XY (one tcgen05.mma into a
# 64-column TMEM region, operands from a 2-stage TMA ring) after taking
# the region back; warp group 0 waits for the product, loads it, releases
# the region and stores the chunk's result.  Left out: the M/N recurrences,
# the other warp group and MMA warp, the fix-up phases and the PR's other
# items (the setmaxnreg contract, the state-input acquire of
# tirx_gdn_state_input_rewritten_before_empty, the MegaMoE fence).
# Fix: tirx_gdn_cp_xy_tmem_load_unwaited_handoff_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def tirx_gdn_cp_xy_tmem_load_unwaited_handoff(lm, X: LM.tma2d, Y: LM.tma2d, O: LM.gmem, n_c: LM.i32):
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
            lm.mma(xy, smem_x[c], smem_y[c], init=True)                  # expect-error: sync.race
            lm.mma_commit(barrier=empty, iter=c)
            lm.mma_commit(barrier=xy_full, iter=c)

    with wg0:
        for c in lm.range(0, n_c):
            lm.wait(xy_full, iter=c)
            lm.tmem_load(xy_r, xy)                                       # expect-error: sync.race
            lm.arrive(xy_empty, iter=c)                                  # hands the columns back, load in flight  # expect-error: sync.race
            lm.tmem_load_wait()
            lm.copy(O, xy_r, coords=(c * 128, h))
