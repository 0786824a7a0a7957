# BUG (proxy.missing-fence): nvFuser's generated TMA-store kernels before
# NVIDIA/Fuser PR #1967 ("Add a fence before TMA store", follow-up of the
# review of PR #1962).  The kernel fills its shared-memory tile T1 with
# generic stores (a zero fill, then the predicated copy of T0) and issues
# cp.async.bulk.tensor (shared -> global) right after them, with no
# fence.proxy.async: the TMA engine reads T1 through the async proxy and
# may miss the generic writes.  The PR inserts
# asm volatile("fence.proxy.async;") before the store.
# Modelled: one warp (the example kernel's block), a 1-D tile of 256 halves
# per block through LM.tma1d; the predicated gather from T0 is a register
# fragment copied in.
# Fix: nvfuser_tma_store_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def nvfuser_tma_store_no_fence(lm, T2: LM.tma1d):
    pool = lm.smem(512)
    t1   = pool.view(offset=0, shape=(256,), dtype=lm.f16)
    vals = lm.regs(shape=(256,), dtype=lm.f16)

    block = lm.role(warps=[0])

    with block:
        lm.fill(vals, 0.0)
        lm.copy(t1[0], vals)                                         # expect-error: proxy.missing-fence
        t1.tma_store(T2, coords=(lm.block_idx(0) * 256,), stage=0)    # expect-error: proxy.missing-fence
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
