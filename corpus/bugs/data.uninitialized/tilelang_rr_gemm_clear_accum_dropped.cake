# BUG (data.uninitialized): tile-ai/tilelang issue #2617 ("`T.gemm` with
# both operands in `local.fragment` (RR variant) silently ignores
# `clear_accum=True` on sm_80/86/89 -> stale accumulator, wrong result",
# 2026-07-11, closed as fixed).  GemmMMA.lower (tilelang/cuda/op/gemm/
# gemm_mma.py) reads clear_accum and its SS and RS branches emit
# T.clear(C_buf) before the micro-K loop, but the register-register branch
# _gemm_rrr has no clear: a T.gemm(A_frag, B_frag, C_frag,
# clear_accum=True) whose accumulator nothing else initializes lowers to
# tl::mma_sync calls that add into whatever C_frag's registers held (found
# by the fuzzer on L40S and H100: RR falls back to mma.sync even on sm_90).
# The fix clears C_buf before the RR loop, as the siblings do.
# Modelled: one 128x128x32 block tile per CTA (K = block_K: the gemm runs
# once), 4 warps as one instance; A and B are staged through shared memory
# with cp.async and copied into register fragments (T.copy to
# local.fragment), then the RR gemm in two micro-K steps of 16, then the
# accumulator is cast and stored.  The dropped clear is the missing
# init=True on the first micro-K step: that mma.sync reads acc before
# anything of this instance wrote it.
# Fix: tilelang_rr_gemm_clear_accum_dropped_fixed.cake.
# expect: data.uninitialized
@cake.schedule(target="sm_80")
def tilelang_rr_gemm_clear_accum_dropped(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(128, 32), dtype=lm.f16, stages=1)
    smem_b = pool.view(offset=8192, shape=(128, 32), dtype=lm.f16, stages=1)
    fa     = lm.regs(shape=(128, 32), dtype=lm.f16)
    fb     = lm.regs(shape=(128, 32), dtype=lm.f16)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.f16)

    threads = lm.role(warps=[0, 1, 2, 3])
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with threads:
        smem_a.cp_async(A, coords=(m_blk, 0), stage=0)
        smem_b.cp_async(B, coords=(n_blk, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(fa, smem_a[0])                              # T.copy(A_shared, A_frag)
        lm.copy(fb, smem_b[0])                              # T.copy(B_shared, B_frag)
        # BUG: T.gemm(A_frag, B_frag, C_frag, clear_accum=True) lowers with no clear
        lm.mma(acc, fa[:, 0:16], fb[:, 0:16])               # expect-error: data.uninitialized
        lm.mma(acc, fa[:, 16:32], fb[:, 16:32])
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
