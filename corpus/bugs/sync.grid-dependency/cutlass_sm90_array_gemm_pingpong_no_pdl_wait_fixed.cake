# FIXED form of cutlass_sm90_array_gemm_pingpong_no_pdl_wait.cake
# (NVIDIA/cutlass PR #2719, fixing issue #2760): the producer warpgroup
# calls cutlass::arch::wait_on_dependent_grids() before its first TMA load,
# as the non-array sm90 kernels do.  The math warpgroups read A only
# through the full barrier, so they are ordered after that wait without
# waiting themselves (docs/rules/sync.grid-dependency.md).
# expect: pass
@cake.schedule(target="sm_90a")
def cutlass_sm90_array_gemm_pingpong_no_pdl_wait_fixed(lm, A: LM.tma3d, B: LM.tma3d, D: LM.tma3d,
                                                       M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    lm.grid_dependency(A)
    pool   = lm.smem(122880)
    smem_a = pool.view(offset=0,      shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_d = pool.view(offset=98304,  shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order_mma = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)
    order_epi = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    l         = lm.block_idx(1)
    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 64)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        lm.grid_dep_wait()                  # cutlass::arch::wait_on_dependent_grids()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(l, m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(l, n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        for t in lm.range(lm.instance(), my_tiles, 2):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            if t > 0:
                lm.wait(order_mma, stage=lm.instance())
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.arrive(order_mma, stage=1 - lm.instance())
            if t > 0:
                lm.wait(order_epi, stage=lm.instance())
            lm.tma_store_wait(pending=1)
            lm.copy(smem_d[0], acc[:, 0:64])
            lm.fence_proxy()
            smem_d.tma_store(D, coords=(l, m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=1)
            lm.copy(smem_d[1], acc[:, 64:128])
            lm.fence_proxy()
            smem_d.tma_store(D, coords=(l, m_blk, n_blk + 64), stage=1)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(order_epi, stage=1 - lm.instance())
