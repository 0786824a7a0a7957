# FIX of tilelang_sr_gemm_clear_accum_in_microk.cake: tile-ai/tilelang
# issue #2627 as fixed: the SR branch clears C once before its micro-K
# loop (here: init=True on the first micro-K step only; the second step
# accumulates onto the first step's product, which it reads).
# Same model as the broken file.
# expect: pass
# lower: unsupported (an mma with A from shared memory and B from a sliced register fragment: the lowering takes register operands for A, or for both as whole fragments)
@cake.schedule(target="sm_80")
def tilelang_sr_gemm_clear_in_microk_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
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
        lm.mma(acc, smem_a[0][:, 0:16], fb[:, 0:16], init=True)       # C cleared once, before the micro-K loop
        lm.mma(acc, smem_a[0][:, 16:32], fb[:, 16:32])                # the fix: accumulates
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
