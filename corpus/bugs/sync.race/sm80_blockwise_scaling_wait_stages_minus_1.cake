# BUG (sync.race), a mutant of gemm/sm80_blockwise_scaling_multistage.cake
# (CUTLASS's sm80 multistage GEMM with blockwise scaling,
# sm80_mma_multistage_blockwise_scaling.hpp): the k_block = last wait is
# cp_async_wait<Stages - 1> instead of <Stages - 2>.  With Stages - 1
# groups still pending the group of k-tile k + 1 need not have landed, yet
# its first fragments and (at the end of the iteration) its scales are
# read from shared memory.
# Fix: gemm/sm80_blockwise_scaling_multistage.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cutlass_sm80_blockwise_wait_stages_minus_1(lm, A: LM.gmem, B: LM.gmem, SFA: LM.gmem, SFB: LM.gmem,
                                      C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(38528)
    smem_a   = pool.view(offset=0,     shape=(64, 32),  dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b   = pool.view(offset=12288, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_sfa = pool.view(offset=36864, shape=(64, 1),   dtype=lm.f32,  stages=3)
    smem_sfb = pool.view(offset=37632, shape=(4, 1),    dtype=lm.f32,  stages=3)
    fa0 = lm.regs(shape=(64, 16), dtype=lm.bf16)
    fb0 = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fa1 = lm.regs(shape=(64, 16), dtype=lm.bf16)
    fb1 = lm.regs(shape=(128, 16), dtype=lm.bf16)
    tmp   = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc   = lm.regs(shape=(64, 128), dtype=lm.f32)
    sfa_r = lm.regs(shape=(64, 1), dtype=lm.f32)
    sfb_r = lm.regs(shape=(1, 1), dtype=lm.f32)
    out   = lm.regs(shape=(64, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        lm.fill(acc, 0.0)
        for s in lm.range(0, 3):                  # clear(tAsA), clear(tBsB), clear(tSFAsSFA), clear(tSFBsSFB)
            lm.fill(smem_a[s], 0.0)
            lm.fill(smem_b[s], 0.0)
            lm.fill(smem_sfa[s], 0.0)
            lm.fill(smem_sfb[s], 0.0)
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
                smem_sfa.cp_async(SFA, coords=(m_blk, s), stage=s)
                smem_sfb.cp_async(SFB, coords=(lm.block_idx(1) * 4, s), stage=s)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)
        lm.copy(fa0, smem_a[0][:, 0:16])
        lm.copy(fb0, smem_b[0][:, 0:16])
        lm.copy(sfa_r, smem_sfa[0])
        lm.copy(sfb_r, smem_sfb[0][0:1, :])
        for k in lm.range(0, k_tiles):
            # k_block 0
            lm.copy(fa1, smem_a[k][:, 16:32])
            lm.copy(fb1, smem_b[k][:, 16:32])
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
                smem_sfa.cp_async(SFA, coords=(m_blk, kn), iter=kn)
                smem_sfb.cp_async(SFB, coords=(lm.block_idx(1) * 4, kn), iter=kn)
            lm.cp_async_commit()
            lm.mma(tmp, fa0, fb0, init=True)
            # k_block 1: cp_async_wait<Stages - 1>, one group too many pending
            lm.cp_async_wait(pending=2)
            lm.copy(fa0, smem_a[k + 1][:, 0:16])
            lm.copy(fb0, smem_b[k + 1][:, 0:16])
            lm.mma(tmp, fa1, fb1, init=False)
            # promotion with this k-tile's scales, then the next k-tile's
            lm.binary(tmp, tmp, sfa_r, op="mul")
            lm.binary(tmp, tmp, sfb_r, op="mul")
            lm.binary(acc, acc, tmp, op="add")
            lm.copy(sfa_r, smem_sfa[k + 1])
            lm.copy(sfb_r, smem_sfb[k + 1][0:1, :])
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
