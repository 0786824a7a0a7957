# sm_80 GEMM 128x128x64, 3 stages, mma operands from register fragments
# (bench/gpu/schedules/sm80/frag/gen.py; docs/gpu.md "sm_80: mma operands from register fragments").
# expect: pass
@cake.schedule(target="sm_80")
def fragsp13_128x128_k64_s3(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    fa0    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fa1    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fb0    = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fb1    = lm.regs(shape=(128, 16), dtype=lm.bf16)
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
        lm.cp_async_wait(pending=1)
        lm.copy(fa0, smem_a[0][:, 0:16])
        lm.copy(fb0, smem_b[0][:, 0:16])
        for k in lm.range(0, k_tiles):
            lm.copy(fa1, smem_a[k][:, 16:32])
            lm.copy(fb1, smem_b[k][:, 16:32])
            lm.mma(acc, fa0, fb0, init=(k == 0))
            if k + 2 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 2) * 64), iter=k + 2)
            lm.copy(fa0, smem_a[k][:, 32:48])
            lm.copy(fb0, smem_b[k][:, 32:48])
            lm.mma(acc, fa1, fb1)
            lm.copy(fa1, smem_a[k][:, 48:64])
            lm.copy(fb1, smem_b[k][:, 48:64])
            lm.mma(acc, fa0, fb0)
            if k + 2 < k_tiles:
                smem_b.cp_async(B, coords=(n_blk, (k + 2) * 64), iter=k + 2)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            if k + 1 < k_tiles:  # the next k-block's first fragments (none after the last)
                lm.copy(fa0, smem_a[k + 1][:, 0:16])
                lm.copy(fb0, smem_b[k + 1][:, 0:16])
            lm.mma(acc, fa1, fb1)
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
