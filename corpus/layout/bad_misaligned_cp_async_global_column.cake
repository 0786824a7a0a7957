# LAYOUT layout.misaligned (bad, symbolic): the one-stage sm_80 GEMM with
# its K range starting at column K0 of A and B (a split-K slice given by
# the launch). A slot row is 32 bf16 = 64 bytes, so the lowering copies it
# in 16-byte cp.async chunks of 8 elements from `A + row * stride + K0 +
# k * 32 + c`: for K0 = 1 (say) every chunk's global address is 2 bytes
# past a 16-byte boundary, and cp.async.cg faults (misaligned address).
# Fix: lm.assume(K0 % 8 == 0) (good_misaligned_cp_async_global_column_k0_multiple_of_8).
# expect: layout.misaligned

@cake.schedule(target="sm_80")
def bad_misaligned_cp_async_global_column(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32, K0: LM.i32):
    lm.assume(K > 0)
    lm.assume(K0 >= 0)
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(128, 32), dtype=lm.bf16, stages=1, swizzle="64B")
    smem_b = pool.view(offset=8192, shape=(128, 32), dtype=lm.bf16, stages=1, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with wg:
        for k in lm.range(0, k_tiles):
            smem_a.cp_async(A, coords=(m_blk, K0 + k * 32), iter=k)  # expect-error: layout.misaligned
            smem_b.cp_async(B, coords=(n_blk, K0 + k * 32), iter=k)  # expect-error: layout.misaligned
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
