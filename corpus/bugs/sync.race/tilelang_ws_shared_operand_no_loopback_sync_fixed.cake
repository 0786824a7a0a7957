# FIXED: tilelang_ws_shared_operand_no_loopback_sync.cake with the
# loop-back barrier the pass emits for the neighbouring shapes (tile-ai/
# tilelang issue #2613): after its wgmma is retired (mma_wait pending=0)
# each warpgroup bar.syncs before the next iteration's copies, so neither
# overwrites a half of the shared tiles the other's wgmma still reads.
# expect: pass
@cake.schedule(target="sm_90a")
def ws_gemm_shared_operand_loopback_sync(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    a_r    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    b_r    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    wgs   = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    ready = lm.named_barrier(roles=[wgs])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with wgs:
        r0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.copy(a_r, A, coords=(m_blk + r0, k * 64))
            lm.copy(smem_a[0][r0:r0 + 64, :], a_r)
            lm.copy(b_r, B, coords=(n_blk + r0, k * 64))
            lm.copy(smem_b[0][r0:r0 + 64, :], b_r)
            lm.fence_proxy()
            lm.sync(ready)
            lm.mma(acc, smem_a[0][r0:r0 + 64, :], smem_b, init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.sync(ready)  # loop-back WAR barrier
        lm.copy(C, acc, coords=(m_blk + r0, n_blk))
