# FIXED: nvfuser_tma_store_no_fence.cake as NVIDIA/Fuser PR #1967 fixes it:
# a fence.proxy.async between the generic writes of the tile and the TMA
# store that reads it.
# expect: pass
@cake.schedule(target="sm_90a")
def nvfuser_tma_store_fenced(lm, T2: LM.tma1d):
    pool = lm.smem(512)
    t1   = pool.view(offset=0, shape=(256,), dtype=lm.f16)
    vals = lm.regs(shape=(256,), dtype=lm.f16)

    block = lm.role(warps=[0])

    with block:
        lm.fill(vals, 0.0)
        lm.copy(t1[0], vals)
        lm.fence_proxy()
        t1.tma_store(T2, coords=(lm.block_idx(0) * 256,), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
