# GATE mma.no-instruction (bad): a "skinny" Hopper GEMM with 32 x 96 tiles.
# A warpgroup MMA (wgmma.m64nNk16) always produces 64 rows per
# warpgroup; the transposed form (docs/ir-extensions.md "Transposed
# wgmma") puts N on that 64-row side instead, which needs N % 64 == 0.
# acc 32 x 96 is tiled by neither.
# Fix: good_wgmma_m64.cake (64-row tiles), or 32 x 64 / 32 x 128 tiles
# (transposed: good_wgmma_transposed_m8.cake).
# expect: mma.no-instruction
@cake.schedule(target="sm_90a")
def gemm_wgmma_m32(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(32, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(96, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(32, 96), dtype=lm.f32)
    out    = lm.regs(shape=(32, 96), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 32
    n_blk = lm.block_idx(1) * 96

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))  # expect-error: mma.no-instruction
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
