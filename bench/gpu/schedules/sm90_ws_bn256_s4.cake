# Cooperative persistent GEMM with a 128x256 tile, a 4-slot ring and a
# TMA-store epilogue through half-width staging slots (issue 13, helper gemm):
# sm90_ws_bn256_tma.cake with one more ring slot. C[M,N] = A[M,K] . B[N,K]^T.
# Why: Nsight Compute on the 3-slot schedule (bench/gpu/results/2026-issue13b-*)
# found the consumers' wait on `full` not yet complete on 50% of k-blocks
# (the ring holds only 2 k-blocks ahead of the MMAs = 2 x 1024 tensor cycles,
# less than the TMA latency under load); cuBLAS's kernel at 4096^3
# (nvjet_sm90_tst_256x128_64x4_1x2) keeps 4 slots of 48 KiB.
#  * producer warpgroup (setmaxnreg 40): one elected thread streams A
#    (128x64) and B (256x64) k-blocks into a 4-slot ring; the ring index is
#    global across the CTA's tiles; tiles in groups of 8 block rows (L2).
#  * two consumer warpgroups (setmaxnreg 232): instance i multiplies rows
#    [64i, 64i+64) with wgmma m64n256k16, keeps ONE wgmma group in flight
#    (mma_wait(pending=1)) and releases the previous k-block's slot.
#  * epilogue: each instance stores its 64x256 accumulator in two 64x128
#    halves through its own 16 KiB staging slot: before writing the slot it
#    waits until the slot's previous TMA store has read it
#    (tma_store_wait(pending=0)); the second half's store runs under the next
#    tile's mainloop.
# smem: A 4x16K + B 4x32K + C 2x16K = 224 KiB.  regs: 128x40 + 256x232 = 64512.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_ws_bn256_s4(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                           M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(229376)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(256, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=196608, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 256), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    tiles_n   = lm.cdiv(N, 256)
    num_tiles = tiles_m * tiles_n
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 256
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile     = lm.block_idx(0) + t * lm.grid_dim(0)
            first_m  = (tile // (8 * tiles_n)) * 8
            group_m  = min(tiles_m - first_m, 8)
            in_group = tile % (8 * tiles_n)
            m_blk    = (first_m + in_group % group_m) * 128
            n_blk    = (in_group // group_m) * 256
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k > 0:
                    lm.arrive(empty, iter=it - 1)
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 0:128])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc[:, 128:256])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk + 128), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
