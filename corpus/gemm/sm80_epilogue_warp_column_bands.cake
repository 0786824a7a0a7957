# Ampere GEMM, 128x128 tile, four one-warp instances: the cp.async mainloop
# is shared (every warp waits for its own groups and a CTA barrier per
# k-block), each warp accumulates its own 32-column band of the tile
# (smem_b rows 32 * w .. 32 * w + 31). The epilogue reuses the pipeline's
# shared memory as an f32 staging tile after one barrier (no warp still
# reads smem_a / smem_b): each warp writes its column band of the staging
# tile and reads the same band back for the global store, with no barrier in
# between - the bands share no byte. (A read column slice was its bounding
# byte range until session 28, which made this a false sync.race:
# docs/known-limits.md.)
# expect: pass
@cake.schedule(target="sm_80")
def sm80_epilogue_warp_column_bands(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3)
    stg    = pool.view(offset=0,     shape=(128, 128), dtype=lm.f32, stages=1)
    acc    = lm.regs(shape=(128, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])
    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with warps:
        w = lm.instance()
        lm.fill(acc, 0.0)
        for s in lm.range(0, 2):
            if s < k_tiles:
                if w == 0:
                    smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                    smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.sync(cta)
            lm.mma(acc, smem_a[k], smem_b[k][32 * w:32 * w + 32, :], init=False)
            if k + 2 < k_tiles:
                if w == 0:
                    smem_a.cp_async(A, coords=(m_blk, (k + 2) * 32), iter=k + 2)
                    smem_b.cp_async(B, coords=(n_blk, (k + 2) * 32), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.sync(cta)
        lm.copy(stg[0][:, 32 * w:32 * w + 32], acc)
        lm.copy(C, stg[0][:, 32 * w:32 * w + 32], coords=(m_blk, n_blk + 32 * w))
