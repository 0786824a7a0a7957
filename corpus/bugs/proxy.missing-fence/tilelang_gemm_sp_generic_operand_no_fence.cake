# BUG (proxy.missing-fence): TileLang's Hopper `T.gemm_sp`, as reported in
# tile-ai/tilelang issue #2634 ("T.gemm_sp emits code that omits the
# ISA-required fence.proxy.async before the sparse WGMMA - silently reads
# stale operand data").  The kernel stages the A tile into shared memory
# with ordinary (generic-proxy) stores, then the sparse wgmma reads that
# tile through the async proxy.  PTX requires a fence.proxy.async between
# the generic writes and the wgmma read; the dense T.gemm path emits it
# (InjectFenceProxy), the sparse path emitted none, so the wgmma could read
# stale operand data.  The fix makes the sparse path emit the same fence.
# Written in CAKE IR as one warpgroup (a 4-warp role) that copies the A
# tile global -> registers -> shared (st.shared) each k-block, gets B by
# TMA, and issues the wgmma; the core IR has no sparse MMA, so the dense
# lm.mma stands for wgmma.mma_async.sp (its operand reads go through the
# same async proxy; the metadata operand is left out).  The wgmma of each
# k-block is waited (wait_group 0) before A is rewritten.
# Fix: tilelang_gemm_sp_generic_operand_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def tilelang_gemm_sp_generic_operand_no_fence(lm, A: LM.gmem, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    pool  = lm.smem(32768)
    a_s   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, swizzle="128B")
    b_s   = pool.view(offset=8192,  shape=(128, 64), dtype=lm.f16, swizzle="128B")
    a_reg = lm.regs(shape=(64, 64), dtype=lm.f16)
    acc   = lm.regs(shape=(64, 128), dtype=lm.f32)

    wg     = lm.role(warps=[0, 1, 2, 3])
    b_full = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)

    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128
    with wg:
        for k in lm.range(0, lm.cdiv(K, 64)):
            b_s.tma_load(B, coords=(n_blk, k * 64), stage=0, barrier=b_full)
            lm.copy(a_reg, A, coords=(m_blk, k * 64))
            lm.copy(a_s[0], a_reg)
            lm.wait(b_full, stage=0)
            lm.mma(acc, a_s[0], b_s[0], init=(k == 0))            # expect-error: proxy.missing-fence
            lm.mma_commit()
            lm.mma_wait(pending=0)
        lm.copy(C, acc, coords=(m_blk, n_blk))
