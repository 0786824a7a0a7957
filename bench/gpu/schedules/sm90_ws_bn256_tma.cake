# Cooperative persistent GEMM with a 128x256 tile and a TMA-store epilogue
# (the template's tile, bench/gpu/kernels/sm90_ws_gemm.cu, with the corpus's
# store path): C[M,N] = A[M,K] . B[N,K]^T, bf16 -> f32 -> bf16.
#  * producer warpgroup (setmaxnreg 40): one elected thread streams A
#    (128x64) and B (256x64) k-blocks into a 3-slot ring; the ring index is
#    global across the CTA's tiles; tiles in groups of 8 block rows (L2).
#  * two consumer warpgroups (setmaxnreg 232): instance i multiplies rows
#    [64i, 64i+64) with wgmma m64n256k16, keeps ONE wgmma group in flight
#    (mma_wait(pending=1)) and releases the previous k-block's slot.
#  * epilogue: each instance converts its 64x256 accumulator to bf16 into its
#    own staging slot (lowering stores it swizzled), TMA-stores it and lets the
#    store run under the next tile's mainloop: it waits for it
#    (tma_store_wait(pending=0)) only before rewriting the slot.
# smem: A 3x16K + B 3x32K + C 2x32K = 208 KiB.  regs: 128x40 + 256x232 = 64512.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_ws_bn256_tma(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                           M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(212992)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152,  shape=(256, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=147456, shape=(64, 256), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 256), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=3)
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
                lm.wait(empty, iter=it - 3)
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
            lm.copy(smem_c[lm.instance()], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
