# FIX of cutlass_sm80_multistage_residual_cp_async_under_epilogue.cake:
# NVIDIA/cutlass issue #1326, fixed in CUTLASS 3.5 as the maintainer
# describes: cp_async_wait<0>() and __syncthreads() at the end of the
# sm80 multistage mainloop, before the epilogue writes the shared storage
# union.  The wait retires this thread's residue copies; the barrier waits
# for every other warp's wait and for their last ldmatrix reads of the
# stages.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def cutlass_sm80_multistage_drain_before_epilogue_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(49152)
    smem_a  = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_b  = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_aq = pool.view(offset=0,     shape=(32, 32),  dtype=lm.bf16, stages=12)   # quarter w of A stage s: slot 4s + w
    smem_bq = pool.view(offset=24576, shape=(32, 32),  dtype=lm.bf16, stages=12)
    smem_c  = pool.view(offset=0,     shape=(128, 128), dtype=lm.bf16, stages=1)   # epilogue staging (the union)
    acc     = lm.regs(shape=(64, 64), dtype=lm.f32)
    out     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    row     = lm.regs(shape=(32, 64), dtype=lm.bf16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with warps:
        w  = lm.instance()
        wm = 64 * (w // 2)
        wn = 64 * (w % 2)
        for s in lm.range(0, 2):                                   # prologue: Stages - 1 k-tiles
            smem_aq.cp_async(A, coords=(m_blk + 32 * w, s * 32), stage=4 * s + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, s * 32), stage=4 * s + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)                                # cp_async_wait<Stages - 2>
        lm.sync(cta)
        for k in lm.range(0, k_tiles):
            smem_aq.cp_async(A, coords=(m_blk + 32 * w, (k + 2) * 32), stage=4 * ((k + 2) % 3) + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, (k + 2) * 32), stage=4 * ((k + 2) % 3) + w)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k][wm:wm + 64, :], smem_b[k][wn:wn + 64, :], init=(k == 0))
            lm.cp_async_wait(pending=1)                            # cp_async_wait<Stages - 2>
            lm.sync(cta)
        lm.cp_async_wait(pending=0)                                # the fix (CUTLASS 3.5): cp_async_wait<0>();
        lm.sync(cta)                                               # __syncthreads();
        lm.copy(out, acc)
        lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)
        lm.sync(cta)
        for h in lm.range(0, 2):                                   # vectorized read-back, global store
            lm.copy(row, smem_c[0][32 * w:32 * w + 32, 64 * h:64 * h + 64])
            lm.copy(C, row, coords=(m_blk + 32 * w, n_blk + 64 * h))
