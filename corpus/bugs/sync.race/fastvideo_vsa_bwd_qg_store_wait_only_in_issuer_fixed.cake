# FIX of fastvideo_vsa_bwd_qg_store_wait_only_in_issuer.cake:
# hao-ai-lab/FastVideo PR #735: warp 0 calls tma::store_async_wait() right
# after tma::store_add_async, so the reduce-add has read qg_smem before
# warp 0 reaches the next block's __syncthreads(), which every warp passes
# before it rewrites qg_smem.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a")
def fastvideo_vsa_bwd_qg_store_wait_after_issue_fixed(lm, P: LM.gmem, Kin: LM.gmem, QG: LM.tma2d, n_q: LM.i32):
    lm.assume(n_q > 0)
    pool  = lm.smem(32768)
    k_s   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=1)
    ds_s  = pool.view(offset=8192,  shape=(64, 64), dtype=lm.bf16, stages=1)
    qg_s  = pool.view(offset=16384, shape=(64, 64), dtype=lm.f32,  stages=1)
    k_r   = lm.regs(shape=(16, 64), dtype=lm.bf16)
    ds_r  = lm.regs(shape=(16, 64), dtype=lm.bf16)
    ds_o  = lm.regs(shape=(16, 64), dtype=lm.f32)
    kf    = lm.regs(shape=(16, 64), dtype=lm.f32)
    qg_r  = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        o = 16 * ((w + 1) % 4)
        lm.copy(k_r, Kin, coords=(lm.block_idx(0) * 64 + 16 * w, 0))
        lm.copy(k_s[0][16 * w:16 * w + 16, :], k_r)
        for q in lm.range(0, n_q):
            lm.copy(ds_r, P, coords=(q * 64 + 16 * w, 0))          # dS^T rows of this warp
            lm.copy(ds_s[0][16 * w:16 * w + 16, :], ds_r)          # warpgroup::store(ds_smem_t)
            lm.sync(cta)                                           # "wait for ds_smem shared memory write"
            lm.copy(ds_o, ds_s[0][o:o + 16, :])                    # dQ partial = dS K (reads other rows)
            lm.copy(kf, k_s[0][o:o + 16, :])
            lm.binary(qg_r, ds_o, kf, op="mul")
            lm.tma_store_wait(pending=0)                           # tma::store_async_wait(): all warps
            lm.copy(qg_s[0][16 * w:16 * w + 16, :], qg_r)
            lm.fence_proxy()
            lm.sync(cta)
            if w == 0:
                qg_s.tma_store(QG, coords=(q * 64, 0), stage=0)    # tma::store_add_async (warp 0)
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)                       # the fix (PR #735): wait right after the issue
        lm.tma_store_wait(pending=0)
