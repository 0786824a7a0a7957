# BUG (data.discarded-product): tile-ai/tilelang issue #2627 (the SR
# variant of `T.gemm(..., clear_accum=True)` on sm_80: the shared-register
# branch of GemmMMA.lower applies the clear inside its micro-K loop rather
# than once before it, so every micro-K step's mma.sync starts from zero and
# C keeps only the last micro-K slice's product). The first slice's product
# is overwritten before anything read it.
# Modelled: one 128x128x32 block tile per CTA (K = block_K: the gemm runs
# once), 4 warps as one instance; A is staged through shared memory with
# cp.async, B is loaded into a register fragment, then the SR gemm in two
# micro-K steps of 16, each with init=True (the clear inside the loop),
# then the accumulator is cast and stored. Every barrier and wait is right:
# before data.discarded-product `cake check` proved it (exit 0).
# Fix: tilelang_sr_gemm_clear_accum_in_microk_fixed.cake.
# expect: data.discarded-product
@cake.schedule(target="sm_80")
def tilelang_sr_gemm_clear_in_microk(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0, shape=(128, 32), dtype=lm.f16, stages=1)
    fb     = lm.regs(shape=(128, 32), dtype=lm.f16)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.f16)

    threads = lm.role(warps=[0, 1, 2, 3])
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with threads:
        smem_a.cp_async(A, coords=(m_blk, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(fb, B, coords=(n_blk, 0))                             # B_frag
        lm.mma(acc, smem_a[0][:, 0:16], fb[:, 0:16], init=True)       # micro-K step 0, cleared
        lm.mma(acc, smem_a[0][:, 16:32], fb[:, 16:32], init=True)     # BUG: cleared again, step 0's product lost
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
