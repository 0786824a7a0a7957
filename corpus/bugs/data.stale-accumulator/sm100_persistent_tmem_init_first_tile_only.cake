# BUG (data.stale-accumulator): the persistent sm_100a GEMM of
# corpus/bugs/sync.race/cudnn_fe_overlap_acc_release_before_tmem_load_fixed.cake
# (MMA warp, four epilogue warps, a TMEM accumulator per tile, released
# after tcgen05.ld) with the MMA's init= keyed on the ring index
# it = 2*t + k instead of the tile's k. The ring index runs on across tiles
# (the barrier phases need it to), so init= fires on the CTA's first tile
# only: from the second tile on, the first tcgen05.mma adds to TMEM columns
# that still hold the previous tile's product, which the epilogue already
# read out. Every barrier and phase is right (the accumulator handoff
# acc_full / acc_empty included), so no synchronization rule sees it; the
# columns [128, 192) of the odd tiles' window were never written at all
# (data.uninitialized on another element of the same MMA). CUTLASS resets
# the accumulate flag per tile (tiled_mma.accumulate_ = UMMA::ScaleOut::Zero
# before each tile's k loop).
# Fix: sm100_persistent_tmem_init_first_tile_only_fixed.cake (init=(k == 0)).
# lower: unsupported (tcgen05.mma into column slices of one TMEM allocation, the two overlapping accumulator windows: the lowering takes a sliced accumulator only as a column range of a 2-D register fragment)
# expect: data.stale-accumulator
# may-also: data.uninitialized
@cake.schedule(target="sm_100a")
def persistent_tmem_init_first_tile_only(lm, A: LM.tma2d, B: LM.tma2d, D: LM.gmem,
                                           n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    accum  = lm.tmem(cols=0, width=256, shape=(128, 256), dtype=lm.f32)
    r      = lm.regs(shape=(32, 32), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=4)

    m0 = lm.block_idx(0) * 128

    with load:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, 2):
                it = 2 * t + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(m0, 64 * k), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(128 * t, 64 * k), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(acc_empty, iter=t - 1)          # producer_acquire, one stage
            for k in lm.range(0, 2):
                it = 2 * t + k
                lm.wait(full, iter=it)
                if t % 2 == 0:
                    lm.mma(accum[:, 0:128], smem_a[it], smem_b[it], init=(it == 0))  # expect-error: data.stale-accumulator
                else:
                    lm.mma(accum[:, 64:192], smem_a[it], smem_b[it], init=(it == 0))  # expect-error: data.stale-accumulator
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        q = 32 * lm.instance()
        for t in lm.range(0, n_tiles):
            lm.wait(acc_full, iter=t)
            if t % 2 == 0:
                for s in lm.range(0, 4):            # reverse_subtile: 3, 2, 1, 0
                    c0 = 32 * (3 - s)
                    lm.tmem_load(r, accum[q:q + 32, c0:c0 + 32])
                    lm.tmem_load_wait()
                    if s == 1:                      # the fix: released after
                        lm.arrive(acc_empty, iter=t)  # the last overlap subtile's load
                    lm.binary(r, r, 0.5, op="mul")
                    lm.copy(D, r, coords=(m0 + q, 128 * t + c0))
            else:
                for s in lm.range(0, 4):            # forward: 0, 1, 2, 3
                    c0 = 32 * s
                    lm.tmem_load(r, accum[q:q + 32, 64 + c0:64 + c0 + 32])
                    lm.tmem_load_wait()
                    if s == 1:                      # the fix (as above)
                        lm.arrive(acc_empty, iter=t)
                    lm.binary(r, r, 0.5, op="mul")
                    lm.copy(D, r, coords=(m0 + q, 128 * t + c0))
