# BUG (sync.race): DeepGEMM's SM90 tf32_hc_prenorm_gemm
# (deep_gemm/include/deep_gemm/impls/sm90_tf32_hc_prenorm_gemm.cuh), as
# reported in deepseek-ai/DeepGEMM issue #449 and fixed by PR #448
# ("[BugFix][sm90] tf32 gemm race condition").  The math warpgroup feeds the
# wgmma's A operand from registers: each k-block it loads the A tile from
# shared memory into a register fragment and issues an asynchronous
# register-source wgmma.  The warpgroup_wait<0>() that retires the previous
# k-block's wgmma came AFTER the next k-block's A fragment was loaded, so
# the ld.shared into the fragment overwrote registers the in-flight wgmma
# of the previous k-block was still reading (non-deterministic outputs with
# several K blocks).
# Modelled: one TMA producer warp, one math warpgroup, a 4-stage ring of
# A (64x32 f32) and B (32x32 f32) tiles (f32 operands = tf32 wgmma), the
# output through a TMA store.  Split-K, PDL and the squared-sum side output
# of the real kernel are left out.
# Fix: deepgemm_tf32_hc_prenorm_a_regs_reuse_fixed.cake (wait right after
# the commit).
# expect: sync.race
@cake.schedule(target="sm_90a")
def deepgemm_tf32_hc_prenorm_a_regs_reuse(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d, K: LM.i32):
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 32), dtype=lm.f32, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(32, 32), dtype=lm.f32, stages=4, swizzle="128B")
    smem_d = pool.view(offset=49152, shape=(64, 32), dtype=lm.f32)
    a_frag = lm.regs(shape=(64, 32), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 32), dtype=lm.f32)

    tma  = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[tma], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[tma], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 64

    with tma:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 32), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k * 32), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(a_frag, smem_a[k])                               # expect-error: sync.race
            lm.fence_proxy()   # generic read of a TMA stage before its release (docs/rules/proxy.missing-fence.md)
            if k > 0:
                # retires k-block k-1's wgmma only now, after a_frag was reloaded
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k - 1)
            lm.mma(acc, a_frag, smem_b[k], init=(k == 0))            # expect-error: sync.race
            lm.mma_commit()
        if k_tiles > 0:
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k_tiles - 1)
        lm.copy(smem_d[0], acc)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
