# GEMM for decode shapes (M <= 128): C[M,N] = A[M,K] . B[N,K]^T, bf16 -> f32 -> bf16.
# At small M the time is streaming B (N x K) from DRAM, so the schedule wants
# many CTAs with deep rings rather than big tiles: a 64x32 output tile
# (N / 32 CTAs per 64 rows of M), a 16-slot TMA ring of 12 KiB (64 KiB of B in flight), one CTA per SM.
#  * load warp (warp 4; 5 warps in all): its elected thread streams A (64x64, mostly zero-filled rows
#    when M < 64) and B (32x64) k-blocks;
#  * one consumer warpgroup: wgmma m64n32k16, ONE group in flight
#    (mma_wait(pending=1)), releases the previous k-block's slot;
#  * epilogue through a staging slot and a TMA store (clipped at M).
# smem: A 16x8K + B 16x4K + C 4K = 196 KiB.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_small_m16(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(200704)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=16, swizzle="128B")
    smem_b = pool.view(offset=131072, shape=(32, 64), dtype=lm.bf16, stages=16, swizzle="128B")
    smem_c = pool.view(offset=196608, shape=(64, 32), dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(64, 32), dtype=lm.f32)

    math = lm.role(warps=[0, 1, 2, 3])
    load = lm.role(warps=[4])
    pipe  = lm.pipeline(stages=16)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 32

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 16)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
            if k > 0:
                lm.arrive(empty, iter=k - 1)
        lm.mma_wait(pending=0)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
