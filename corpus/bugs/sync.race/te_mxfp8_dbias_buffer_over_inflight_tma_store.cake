# BUG (sync.race): NVIDIA/TransformerEngine PR #2921 ("Fix the race in the
# dbias computation in MXFP8 quantization and grouped quantization
# kernel", merged 2026-04-23: "the synchronization between the last TMA
# write of the output tile and the dbias workspace computation").
# quantize_mxfp8_kernel (transformer_engine/common/cast/mxfp8/
# quantize_mxfp8.cuh), cast + dbias only, bf16 input: a 128 x 128 chunk per
# CTA, 128 threads, 4 stages of 32 rows through 2 input buffers (in_sh,
# TMA loads) and 2 output buffers (out_rowwise_data_sh, TMA stores issued
# and committed by the master thread, which waits cp.async.bulk
# wait_group.read<1> at the start of a stage only when a next stage
# exists).  After the stage loop the rowwise dbias reduction reuses dshmem
# (in_sh) as a [THREADS_Y = 32] x [THREADS_X * (32 + 1) = 132] f32 buffer:
# 16896 bytes over the 16384 of in_sh, so rows 31 (the last 512 bytes)
# land on out_rowwise_data_sh[0], which the TMA store of stage 2 may still
# be reading - nothing waited for it, and a bulk group can only be waited
# by its issuing thread.  PR #2921 adds cp_async_bulk_wait_group_read<0>()
# and __syncthreads() before the dbias buffer is written.
# Modelled: each warp its own instance (thread t owns dbias row t / 4, so
# warp w rows 8w..8w+7; warp 3 writes the overlapping row); warp 0 issues
# the TMA loads (one mbarrier per stage, as mbar[STAGES]) and stores; every
# thread calls the bulk wait (only warp 0's has groups) and fences before
# the stage's __syncthreads(); the cast is a conversion of the warp's 8
# rows; the dbias partials are the f32 rows, reduced over the 32 rows per
# column after the barrier and stored to the workspace.  The in-loop reuse
# of out_rowwise_data_sh has the same issuer-only wait, and the wait sat
# under the prefetch's `next_stage < STAGES` test (TransformerEngine PR
# #3417; the corpus pair te_group_mxfp8_store_wait_leader_only): the model
# carries #3417's form - the wait every stage, then a barrier - so that
# this pair isolates the dbias overlap.
# Fix: te_mxfp8_dbias_buffer_over_inflight_tma_store_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def te_mxfp8_dbias_buffer_over_inflight_tma_store(lm, X: LM.tma2d, Y: LM.tma2d, DB: LM.gmem):
    pool   = lm.smem(24576)
    in_s   = pool.view(offset=0,     shape=(32, 128), dtype=lm.bf16, stages=2)
    out_s  = pool.view(offset=16384, shape=(32, 128), dtype=lm.e4m3, stages=2)
    dbias  = pool.view(offset=0,     shape=(32, 132), dtype=lm.f32,  stages=1)   # reuses dshmem (in_sh)
    dbw    = pool.view(offset=0,     shape=(8, 132),  dtype=lm.f32,  stages=4)   # rows 8w..8w+7: slot w
    x_r    = lm.regs(shape=(8, 128),  dtype=lm.f32)
    y_r    = lm.regs(shape=(8, 128),  dtype=lm.e4m3)
    acc    = lm.regs(shape=(8, 132),  dtype=lm.f32)
    col    = lm.regs(shape=(32, 32),  dtype=lm.f32)
    dsum   = lm.regs(shape=(1, 32),   dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    full  = lm.barrier(count=4, prod=[warps], cons=[warps], init_count=1)
    cta   = lm.named_barrier(roles=[warps])

    m0 = lm.block_idx(1) * 128
    n0 = lm.block_idx(0) * 128

    with warps:
        w = lm.instance()
        lm.fill(acc, 0.0)
        if w == 0:
            in_s[0].tma_load(X, coords=(m0, n0), stage=0, barrier=full)
        for s in lm.range(0, 4):
            lm.tma_store_wait(pending=1)                           # every thread; only warp 0 has groups
            lm.sync(cta)                                           # PR #3417's handoff (see the header)
            if s + 1 < 4:
                if w == 0:
                    in_s[(s + 1) % 2].tma_load(X, coords=(m0 + (s + 1) * 32, n0), stage=s + 1, barrier=full)
            lm.wait(full, stage=s)
            lm.copy(x_r, in_s[s % 2][8 * w:8 * w + 8, :])
            lm.binary(acc[:, 0:128], acc[:, 0:128], x_r, op="add") # thread_dbias_rowwise
            lm.copy(y_r, x_r)                                      # scale and cast to e4m3
            lm.copy(out_s[s % 2][8 * w:8 * w + 8, :], y_r)
            lm.fence_proxy()
            lm.sync(cta)
            if w == 0:
                out_s.tma_store(Y, coords=(m0 + s * 32, n0), stage=s % 2)
                lm.tma_store_commit()
        # BUG: no cp_async_bulk_wait_group_read<0>(); __syncthreads(); before dshmem is reused
        lm.copy(dbw[w], acc)                                       # expect-error: sync.race
        lm.sync(cta)
        lm.copy(col, dbias[0][:, 33 * w:33 * w + 32])
        lm.reduce(dsum, col, op="sum", axis=0)
        lm.copy(DB, dsum, coords=(lm.block_idx(1), n0 + 32 * w))
        lm.tma_store_wait(pending=0)
