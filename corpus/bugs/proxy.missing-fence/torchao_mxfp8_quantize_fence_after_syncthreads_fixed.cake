# FIXED form of torchao_mxfp8_quantize_fence_after_syncthreads.cake
# (pytorch/ao PR #4278): every thread fences its shared-memory writes,
# then __syncthreads(), then thread 0 issues the TMA store - the barrier
# orders all fences before the issue.
# expect: pass
@cake.schedule(target="sm_100a")
def torchao_mxfp8_quantize_fence_then_syncthreads_fixed(lm, In: LM.gmem, Out: LM.tma2d):
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
        lm.copy(out_sh[0][16 * w:16 * w + 16, :], q)
        lm.fence_proxy()                                    # the fix (PR #4278): fence first
        lm.sync(cta)                                        # __syncthreads()
        if w == 0:
            out_sh.tma_store(Out, coords=(row0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
