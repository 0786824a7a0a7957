# BUG (sync.race): NVIDIA/cudnn-frontend issue #652, fixed by PR #654 (and
# PR #673 for the Rubin copy): the SM100 block-scaled grouped-GEMM CuTe DSL
# kernels (python/cudnn/gemm/cutedsl/grouped/{srelu,dsrelu,quant}/
# moe_blockscaled_grouped_gemm_*.py) with `overlapping_accum`.  The two TMEM
# accumulator buffers of a 256-column tile do not fit next to the scale
# factors, so they overlap: buffer 1 starts `num_sf_tmem_cols` columns
# before buffer 0 ends.  The accumulator pipeline has one stage and the
# buffer is chosen by its phase (acc_stage_index = acc_consumer_state.phase);
# the epilogue reads buffer 0 in reverse subtile order and buffer 1 forward,
# so the subtiles in the overlap come first, and releases the stage early
# (acc_pipeline.consumer_release) at subtile iter_acc_early_release_in_epilogue,
# the last subtile of the overlap, so the MMA warp can start the next tile
# while the epilogue drains the rest.  The kernels released BEFORE issuing the
# TMEM->register cute.copy (tcgen05.ld) of that subtile:
#     fence_view_async_tmem_load(); consumer_release(); cute.copy(t2r, ...)
# i.e. wait::ld -> mbarrier.arrive -> tcgen05.ld: the MMA of the next tile,
# waiting on that mbarrier, overwrites overlap columns the epilogue has not
# read yet (write-after-read on Tensor Memory; the issue's diagnosis).
# Modelled: a persistent loop over n_tiles tiles of 2 K blocks (TMA warp,
# MMA warp, 4 epilogue warps, each a one-warp instance reading its lane
# quarter, releasing with one elected arrival per warp: acc_empty counts 4);
# one 256-column TMEM allocation (columns [192, 256) stand for the scale
# factors' columns at the top) sliced into two overlapping 128-column
# buffers, accum[:, 0:128] and accum[:, 64:192] (64 overlap columns = 2
# subtiles of 32, so the release index is ceil(64 / 32) - 1 = 1), tile t in
# buffer t % 2 (two declared regions may not share columns: tmem.overlap).  Left out: the scale
# factors and block scaling (a plain bf16 tcgen05.mma), bias, amax, SFD
# quantization, the C/D TMA-store pipelines (a st.global stands for them),
# the MoE tile scheduler.
# Fix: cudnn_fe_overlap_acc_release_before_tmem_load_fixed.cake (the copy and
# its wait move above the fence/release block).
# expect: sync.race
@cake.schedule(target="sm_100a")
def cudnn_fe_overlap_acc_release_before_tmem_load(lm, A: LM.tma2d, B: LM.tma2d, D: LM.gmem,
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
                    lm.mma(accum[:, 0:128], smem_a[it], smem_b[it], init=(k == 0))    # expect-error: sync.race
                else:
                    lm.mma(accum[:, 64:192], smem_a[it], smem_b[it], init=(k == 0))   # expect-error: sync.race
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        q = 32 * lm.instance()
        for t in lm.range(0, n_tiles):
            lm.wait(acc_full, iter=t)
            if t % 2 == 0:
                for s in lm.range(0, 4):            # reverse_subtile: 3, 2, 1, 0
                    c0 = 32 * (3 - s)
                    if s == 1:                      # BUG: released before this subtile's tcgen05.ld
                        lm.arrive(acc_empty, iter=t)                                  # expect-error: sync.race
                    lm.tmem_load(r, accum[q:q + 32, c0:c0 + 32])                      # expect-error: sync.race
                    lm.tmem_load_wait()
                    lm.binary(r, r, 0.5, op="mul")
                    lm.copy(D, r, coords=(m0 + q, 128 * t + c0))
            else:
                for s in lm.range(0, 4):            # forward: 0, 1, 2, 3
                    c0 = 32 * s
                    if s == 1:                      # BUG (as above)
                        lm.arrive(acc_empty, iter=t)                                  # expect-error: sync.race
                    lm.tmem_load(r, accum[q:q + 32, 64 + c0:64 + c0 + 32])            # expect-error: sync.race
                    lm.tmem_load_wait()
                    lm.binary(r, r, 0.5, op="mul")
                    lm.copy(D, r, coords=(m0 + q, 128 * t + c0))
