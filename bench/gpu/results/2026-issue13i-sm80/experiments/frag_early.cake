# issue 13 (helper sm80, session 12): a fragment copy (lm.copy smem -> regs) of a k-step slice
# BEFORE the cp_async_wait that lands the slot: cake check reports sync.race (counterexample at K=1)
# The lowering takes it as row-cycled element loads, not ldmatrix into an mma-operand layout (docs/gpu.md
# "sm_80: hoisted copy offsets and the k-block boundary", What is left).
@cake.schedule(target="sm_80")
def frag_early(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
               M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    fa     = lm.regs(shape=(128, 16), dtype=lm.bf16)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    mainloop = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 64), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.copy(fa, smem_a[k][:, 0:16])
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 64), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 64), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
