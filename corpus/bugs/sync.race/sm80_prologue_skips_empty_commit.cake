# BUG (sync.race): Ampere multistage GEMM whose prologue is bounded by
# min(S-1, k_tiles) and therefore skips the (empty) cp.async group commits
# when K is short.  The mainloop's cp_async_wait(pending=S-2) assumes
# exactly S-1 prologue groups: with k_tiles = 1 only one group exists, so
# pending=1 lets the group of k-block 0 stay in flight while mma.sync
# already reads slot 0.
# Models: CUTLASS sm80 MmaMultistage, whose prologue always commits S-1
# groups (predicated-off copies) precisely to keep this count uniform.
# Fix: gemm/sm80_cp_async_multistage.cake (loop to S-1, guard the copies
# with `if s < k_tiles`, commit unconditionally).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def gemm_sm80_short_prologue(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
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
        for s in lm.range(0, min(2, k_tiles)):
            smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
            smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))  # expect-error: sync.race
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
