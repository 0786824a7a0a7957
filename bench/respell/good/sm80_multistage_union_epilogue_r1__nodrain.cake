# respells: corpus/bugs/sync.race/cutlass_sm80_multistage_residual_cp_async_under_epilogue.cake
# change: the prologue loop written out (two commit groups, slots w and w + 4), the refill's
# quarter slot as (4 * k + 8 + w) % 12 (= 4 * ((k + 2) % 3) + w), the operands as smem_a[k % 3],
# the warp's row and column offsets as (w - w % 2) * 32 and 64 * w - 128 * (w // 2), init= as
# k < 1, the read-back loop over column offsets in steps of 64.
@cake.schedule(target="sm_80")
def sm80_multistage_union_epilogue(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
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
        wm = (w - w % 2) * 32
        wn = 64 * w - 128 * (w // 2)
        row_a = 32 * w + m_blk
        row_b = 32 * w + n_blk
        smem_aq.cp_async(A, coords=(row_a, 0), stage=w)
        smem_bq.cp_async(B, coords=(row_b, 0), stage=w)
        lm.cp_async_commit()
        smem_aq.cp_async(A, coords=(row_a, 32), stage=w + 4)
        smem_bq.cp_async(B, coords=(row_b, 32), stage=4 + w)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=1)
        lm.sync(cta)
        for k in lm.range(0, k_tiles):
            q = (4 * k + 8 + w) % 12
            smem_aq.cp_async(A, coords=(row_a, 32 * k + 64), stage=q)
            smem_bq.cp_async(B, coords=(row_b, 32 * k + 64), stage=q)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k % 3][wm:wm + 64, :], smem_b[k % 3][wn:wn + 64, :], init=(k < 1))
            lm.cp_async_wait(pending=1)
            lm.sync(cta)
        lm.copy(out, acc)
        lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)
        lm.sync(cta)
        for c in lm.range(0, 128, 64):
            lm.copy(row, smem_c[0][32 * w:32 * (w + 1), c:c + 64])
            lm.copy(C, row, coords=(row_a, n_blk + c))
