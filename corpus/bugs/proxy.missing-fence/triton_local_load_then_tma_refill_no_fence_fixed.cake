# FIXED form of triton_local_load_then_tma_refill_no_fence.cake
# (triton-lang/triton PR #7262): the new pass puts a fence.proxy.async
# after the generic-proxy local_load of the stage and before the TMA load
# that refills it.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_local_load_then_tma_refill_no_fence_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                               K: LM.i32):
    lm.assume(K >= 128)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16)
    a_frag = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg   = lm.role(warps=[0, 1, 2, 3])
    full = lm.barrier(count=2, prod=[wg], cons=[wg], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 64

    with wg:
        for k in lm.range(0, 2):
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(a_frag, smem_a[k])                           # local_load (ld.shared)
            lm.mma(acc, a_frag, smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.fence_proxy()                                     # the fix
            if k + 2 < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
