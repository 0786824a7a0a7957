# FIX of mlx_qmm_sm80_epilogue_union_cp_async_in_flight.cake:
# lablup/mlxcel PR #923 (and upstream MLX's qmm_sm80_mainloop):
# cp_async_wait<0>() and __syncthreads() at the top of the epilogue, before
# the first write of C into the shared-storage union.  The wait retires
# this thread's last (clamped, re-fetching) prefetch; the barrier waits for
# every warp's wait and for their last reads of the stages.  Same model as
# the broken file.
# expect: pass
# lower: unsupported (an mma.sync operand fragment sliced at a row that is not a constant)
@cake.schedule(target="sm_80")
def mlx_qmm_sm80_epilogue_drain_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 128)
    pool    = lm.smem(36864)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, stages=3)
    smem_b  = pool.view(offset=24576, shape=(128, 32), dtype=lm.i8,  stages=3)
    smem_aq = pool.view(offset=0,     shape=(16, 64),  dtype=lm.f16, stages=12)   # warp w's rows of A stage s: slot 4s + w
    smem_bq = pool.view(offset=24576, shape=(32, 32),  dtype=lm.i8,  stages=12)
    smem_c  = pool.view(offset=0,     shape=(64, 128), dtype=lm.f16, stages=1)    # SharedStorage::epilogue.C (the union)
    fa      = lm.regs(shape=(32, 64), dtype=lm.f16)
    fq      = lm.regs(shape=(64, 32), dtype=lm.i8)
    fb      = lm.regs(shape=(64, 64), dtype=lm.f16)
    acc     = lm.regs(shape=(32, 64), dtype=lm.f32)
    out     = lm.regs(shape=(32, 64), dtype=lm.f16)
    row     = lm.regs(shape=(16, 128), dtype=lm.f16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with warps:
        w  = lm.instance()
        wm = 32 * (w // 2)
        wn = 64 * (w % 2)
        for s in lm.range(0, 2):                                   # prefetch K_PIPE_MAX - 1 tiles
            smem_aq.cp_async(A, coords=(m_blk + 16 * w, s * 64), stage=4 * s + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, s * 32), stage=4 * s + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)                                # cp_async_wait<K_PIPE_MAX - 2>
        lm.sync(cta)
        for k in lm.range(0, k_tiles):
            t = min(k + 2, k_tiles - 1)                            # tile_pipe, clamped
            smem_aq.cp_async(A, coords=(m_blk + 16 * w, t * 64), stage=4 * ((k + 2) % 3) + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, t * 32), stage=4 * ((k + 2) % 3) + w)
            lm.cp_async_commit()
            lm.copy(fa, smem_a[k][wm:wm + 32, :])                  # ldmatrix A
            lm.copy(fq, smem_b[k][wn:wn + 64, :])                  # ld.shared of the packed weights
            lm.copy(fb, fq)                                        # dequant (4-bit -> f16)
            lm.mma(acc, fa, fb, init=(k == 0))
            lm.cp_async_wait(pending=1)
            lm.sync(cta)
        lm.copy(out, acc)
        lm.cp_async_wait(pending=0)                                # the fix (mlxcel PR #923): cp_async_wait<0>();
        lm.sync(cta)                                               # __syncthreads();
        lm.copy(smem_c[0][wm:wm + 32, wn:wn + 64], out)
        lm.sync(cta)
        lm.copy(row, smem_c[0][16 * w:16 * w + 16, :])            # s2g_copy_c
        lm.copy(C, row, coords=(m_blk + 16 * w, n_blk))
