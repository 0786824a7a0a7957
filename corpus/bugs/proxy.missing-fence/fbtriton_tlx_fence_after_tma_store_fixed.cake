# FIX of: facebookexperimental/triton PR #368 ("Move
# tlx.fence_async_shared before tlx.async_descriptor_store in test_tlx unit
# test", 2025-09-24; synced as PR #375).  A TLX kernel (internal diff
# D83073728, reproduced in the test the PR corrects) computed
# `out = async_dot(x, z)`, `async_dot_wait(0)`, `local_store(out_smem, out)`
# (generic st.shared), then `async_descriptor_store(out_desc, out_smem)`
# (a TMA store: async-proxy read of out_smem), `async_descriptor_store_wait(0)`
# and only THEN `fence_async_shared()`: the fence after the store orders
# nothing the store reads, so the TMA engine could read out_smem before the
# generic writes were visible to the async proxy, and the output had
# "incomplete results" (inaccurate values).  The fix moves the fence
# between local_store and async_descriptor_store.
# Modelled: sm_90a, one warpgroup; z loaded once by TMA, then a loop over
# row tiles (x tile by TMA, wgmma from shared memory, wait, st.shared of the
# f32 result converted to bf16, TMA store, store wait, fence).  The loop is
# this file's addition: it puts the previous tile's trailing fence before
# the next tile's st.shared - a fence that still orders nothing for the
# next store.  Left out: the tensor descriptor set-up.
# Broken form: fbtriton_tlx_fence_after_tma_store.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def fbtriton_tlx_fence_after_tma_store_fixed(lm, X: LM.tma2d, Z: LM.tma2d, Out: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool  = lm.smem(65536)
    x_s   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16)
    z_s   = pool.view(offset=8192,  shape=(64, 64), dtype=lm.bf16)
    out_s = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg = lm.role(warps=[0, 1, 2, 3])
    z_full = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)
    x_full = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)

    with wg:
        z_s.tma_load(Z, coords=(0, 0), stage=0, barrier=z_full)
        lm.wait(z_full, stage=0)
        for t in lm.range(0, n_tiles):
            x_s.tma_load(X, coords=(64 * t, 0), iter=t, barrier=x_full)
            lm.wait(x_full, iter=t)
            lm.mma(acc, x_s[0], z_s[0], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.copy(out_s[0], acc)
            lm.fence_proxy()    # FIX: between the generic writes and the TMA store
            out_s.tma_store(Out, coords=(64 * t, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
