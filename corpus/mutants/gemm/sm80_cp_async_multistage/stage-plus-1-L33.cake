# mutant: stage-plus-1
# original: corpus/gemm/sm80_cp_async_multistage.cake
# line: 33: smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
# change: stage: `s` -> `(s + 1) % 3`
# label: bad (data.stale-read) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 48, 80, 112, 176, 208} (6 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 46 states; first violation: data.stale-read: mainloop reads smem_a[0] bytes [0, 8192) (for index 0) but nothing was written there yet at `lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))` (line 38) (M=0, N=0, K=112)
# expect-any: data.stale-read
# Ampere multistage GEMM (CUTLASS sm80 MmaMultistage, 3 stages, 128x128x32,
# 4 warps in one instance; mma.sync is synchronous on sm_80).
# C = A . B^T, bf16 -> f32 -> bf16, plain global pointers.
#  * prologue: issue k-blocks 0..S-2, ONE cp.async group per k-block, and
#    commit even when the k-block does not exist (empty group) so that the
#    group count stays uniform - exactly CUTLASS's trick.
#  * mainloop k: cp_async_wait(pending=S-2) retires the group of k-block k
#    (groups committed so far: S-1+k); lowering then bar.syncs the
#    instance's warps, which also orders every warp's reads of slot (k-1)%S
#    (iteration k-1) before the refill of that slot below.
#  * refill slot (k+S-1)%S = (k-1)%S, guarded, then commit (possibly empty).
# smem: 2 x 3 x 8 KiB = 48 KiB.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def gemm_sm80_multistage(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                         M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=(s + 1) % 3)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        # epilogue: convert and store straight from registers
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
