# CUTLASS's Ampere multistage GEMM with blockwise scaling (NVIDIA/cutlass
# include/cutlass/gemm/collective/sm80_mma_multistage_blockwise_scaling.hpp,
# MainloopSm80CpAsyncBlockwiseScaling): the per-block scales travel in the
# SAME cp.async groups as their A/B k-tile, the mma.sync products of a
# k-tile go into a temporary accumulator that is scaled and added into the
# real one after the tile, and the NEXT k-tile's scales are read from
# shared memory at the end of the iteration (after the k_block = last
# wait has retired that tile's group).  3 stages, 64x128x32 tile,
# K_BLOCK_MAX = 2 (two k16 steps), 4 warps in one instance; ScaleGranularityM
# = 1 (a scale per row of A), ScaleGranularityN = 128 (one per tile of B),
# ScaleGranularityK = 32 (one per k-tile).
#  * prologue: clear every slot of A, B and the scales (generic stores: the
#    predicated-off loads leave zeros), then k-tiles 0..S-2, one group each (A, B, SFA, SFB), committed
#    even when empty; cp_async_wait<S-2> + __syncthreads; k_block 0's
#    fragments and k-tile 0's scales to registers.
#  * k_block 0 of k-tile k: fragments of k_block 1 from slot k; refill
#    slot (k-1) % S with k-tile k + S - 1 (guarded, commit always); MMA.
#  * k_block 1: cp_async_wait<S-2> + __syncthreads (k-tile k+1 landed);
#    fragments of k-tile k+1's k_block 0; MMA.
#  * promotion: tmp * SFA * SFB into acc, then the next k-tile's scales.
#    Past the last k-tile CUTLASS still reads slot (k+1) % S (fragments and
#    scales it never uses): an older k-tile, or the prologue's zeros.
#    Without the prologue's clear that dead read of a never-written slot is
#    data.stale-read at K=1 (docs/known-limits.md "A dead read past the
#    last k-tile").
# Mutant: bugs/sync.race/sm80_blockwise_scaling_wait_stages_minus_1.cake.
# expect: pass
@cake.schedule(target="sm_80")
def cutlass_sm80_blockwise_multistage(lm, A: LM.gmem, B: LM.gmem, SFA: LM.gmem, SFB: LM.gmem,
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
            # k_block 1: the next k-tile's group retires here
            lm.cp_async_wait(pending=1)
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
