# FIXED form of cutlass_sm90_array_gemm_no_pdl_wait.cake (NVIDIA/cutlass
# PR #2719 "Support PDL for SM90 Array TMA GEMM", which fixes issue #2760):
# as in the non-array sm90 cooperative kernel, the producer warp calls
# cutlass::arch::wait_on_dependent_grids() before its first TMA load (the
# consumers read A only through the full barrier, after that wait), and
# the consumers call launch_dependent_grids() after the mainloop, before
# the epilogue.
# expect: pass
@cake.schedule(target="sm_90a")
def cutlass_sm90_array_gemm_no_pdl_wait_fixed(lm, A: LM.tma3d, B: LM.tma3d, C: LM.tma3d, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(A)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    l     = lm.block_idx(2)

    with producer:
        lm.grid_dep_wait()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(l, m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(l, n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.launch_dependents()
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(l, m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
