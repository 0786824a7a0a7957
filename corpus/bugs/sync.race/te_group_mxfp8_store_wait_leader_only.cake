# BUG (sync.race): NVIDIA/TransformerEngine issue #3474 ("Illegal memory
# access in grouped MXFP8 quantize on GB200 (sm_100) introduced by #3337;
# TMA store completion handoff missing in group_quantize_mxfp8.cuh"): the
# kernel "performs an issuer-scoped ptx::cp_async_bulk_wait_group_read<
# PREFETCH_STAGES>() inside an if (leading_thread) { ... } block" and then
# every thread writes the next output tile into the staging buffer.  As
# PR #3417 ("[Common] Fix TMA synchronization in quantization kernels")
# explains for the same pattern in the FP8 / MXFP8 / NVFP4 kernels: "Bulk
# async-groups are maintained per issuing thread.  Only the issuing thread
# can wait for its outstanding groups ... Some kernels lacked a CTA-wide
# synchronization point between the leader's completion wait and
# cooperative buffer reuse.  Other threads could therefore overwrite
# shared memory while the TMA engine was still reading it"; the fix adds
# that synchronization point (the grouped kernel was fixed with issue
# #3474's PR #3483): te_group_mxfp8_store_wait_leader_only_fixed.cake.
# Written in CAKE IR: 4 warps, each its own instance (warp 0's elected
# thread is the leading thread; __syncthreads a named barrier), a ring of
# 2 output staging buffers (64x128 e4m3) written cooperatively, one 16-row
# band per warp, fenced, synced, and TMA-stored by the leader, which waits
# with pending=1 (the other buffer's store may stay in flight) before the
# buffer is written again.  The input tile is read with plain loads here
# (the TMA input ring and the scales are left out).
# expect: sync.race
@cake.schedule(target="sm_100a")
def te_group_mxfp8_store_wait_leader_only(lm, In: LM.gmem, Out: LM.tma2d, n_stages: LM.i32):
    lm.assume(n_stages >= 1)
    pool    = lm.smem(16384)
    out_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.e4m3, stages=2)
    x       = lm.regs(shape=(16, 128), dtype=lm.bf16)
    q       = lm.regs(shape=(16, 128), dtype=lm.e4m3)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    row0 = lm.block_idx(0) * n_stages * 64

    with warps:
        w = lm.instance()
        for s in lm.range(0, n_stages):
            if w == 0:
                lm.tma_store_wait(pending=1)          # leading thread only
            # BUG: no __syncthreads() between the leader's wait and the reuse
            lm.copy(x, In, coords=(row0 + 64 * s + 16 * w, 0))
            lm.copy(q, x)
            lm.copy(out_buf[s][16 * w:16 * w + 16, :], q)                            # expect-error: sync.race
            lm.fence_proxy()
            lm.sync(bar)
            if w == 0:
                out_buf.tma_store(Out, coords=(row0 + 64 * s, 0), iter=s)            # expect-error: sync.race
                lm.tma_store_commit()
        if w == 0:
            lm.tma_store_wait(pending=0)
