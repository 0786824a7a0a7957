# GATE target.feature (bad): the Ampere multistage GEMM "modernized" with
# TMA loads (a single role that issues its own loads on an mbarrier ring and
# waits them).  The Tensor Memory Accelerator (cp.async.bulk.tensor) and
# its transaction-count barriers exist from sm_90 on; the target is an
# exact match, so sm_80 rejects them rather than lowering to something else.
# (The schedule is otherwise sound: the refill of slot (k+2)%3 happens
# after the synchronous mma.sync of iteration k-1 in program order.)
# Fix: good_cp_async_on_sm80.cake (cp.async), or target sm_90a.
# expect: target.feature
@cake.schedule(target="sm_80")
def gemm_sm80_with_tma(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem,
                         M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])
    pipe = lm.pipeline(stages=3)
    full = lm.barrier(prod=[mainloop], cons=[mainloop], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, s * 32), iter=s, barrier=full)  # expect-error: target.feature
                smem_b.tma_load(B, coords=(n_blk, s * 32), iter=s, barrier=full)  # expect-error: target.feature
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 2
            if kn < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, kn * 32), iter=kn, barrier=full)  # expect-error: target.feature
                smem_b.tma_load(B, coords=(n_blk, kn * 32), iter=kn, barrier=full)  # expect-error: target.feature
        # epilogue: convert and store straight from registers
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
