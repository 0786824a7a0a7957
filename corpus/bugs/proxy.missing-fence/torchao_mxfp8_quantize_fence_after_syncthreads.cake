# BUG (proxy.missing-fence): pytorch/ao PR #4278 ("Fix race condition in
# mxfp8 CUDA kernels", 2026-04-14).  Two torchao mxfp8 quantize kernels
# had every thread write its part of the quantized output tile to shared
# memory, then __syncthreads(), then fence.proxy.async, and thread 0 issue
# the TMA (bulk tensor) store of the tile.  The fence makes the calling
# thread's generic shared-memory writes visible to the async proxy - but
# only when it is ordered before the TMA issue: with the fence after the
# barrier, thread 0 can pass the barrier, fence its own writes and issue
# the store while the other threads have not fenced theirs (CUDA
# programming guide, "Using TMA to transfer one-dimensional arrays": fence
# in every writing thread, then the barrier, then the elected thread's
# TMA).  The fix moves __syncthreads() between the fences and the issue.
# Modelled: one 64x128 e4m3 output tile per CTA written by four warps, each
# a one-warp instance with 16 rows (in cake the fence is per instance, as
# in PTX it is per thread); __syncthreads() a named barrier over them;
# thread 0 is warp 0's elected thread; the quantization is a cast
# (lm.copy bf16 -> e4m3).  Left out: the TMA input ring and its mbarriers,
# the e8m0 scales and their store, the column-wise variant.
# Fix: torchao_mxfp8_quantize_fence_after_syncthreads_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def torchao_mxfp8_quantize_fence_after_syncthreads(lm, In: LM.gmem, Out: LM.tma2d):
    pool   = lm.smem(8192)
    out_sh = pool.view(offset=0, shape=(64, 128), dtype=lm.e4m3, stages=1)
    x = lm.regs(shape=(16, 128), dtype=lm.bf16)
    q = lm.regs(shape=(16, 128), dtype=lm.e4m3)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        row0 = 64 * lm.block_idx(0)
        lm.copy(x, In, coords=(row0 + 16 * w, 0))
        lm.copy(q, x)                                       # quantize
        lm.copy(out_sh[0][16 * w:16 * w + 16, :], q)        # expect-error: proxy.missing-fence
        lm.sync(cta)                                        # __syncthreads()
        lm.fence_proxy()                                    # BUG: fence after the barrier
        if w == 0:
            out_sh.tma_store(Out, coords=(row0, 0), stage=0)    # expect-error: proxy.missing-fence
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
