# BUG (sync.grid-dependency): NVIDIA/cutlass issue #2962 "[BUG] Sm90 &
# Sm100 Array gemm kernels read ahead of wait_on_dependent_grids()"
# (2026-01-17).  In sm90_gemm_array_tma_warpspecialized_pingpong.hpp (and
# the sm100 array kernel) the group tile scheduler is constructed by every
# thread before cutlass::arch::wait_on_dependent_grids(); its constructor
# reads problem_shapes[0] from the device-side problem-shape array
# (sm90_tile_scheduler_group.hpp:267, group_array_problem_shape.hpp:68),
# which a preceding kernel may still be writing when the GEMM is launched
# with PDL: "a race condition when PDL is enabled".
# Fix (what the report asks for): construct the scheduler (read the
# problem shapes) after wait_on_dependent_grids().
# Written in CAKE IR with the PDL extension: lm.grid_dependency(Shapes)
# (the preceding kernel writes the problem shapes); every role reads the
# group's shape with a generic global load, then waits for the grid
# dependency; a warp-specialized GEMM follows (a TMA producer warp, two
# consumer warpgroups splitting the 128-row tile, 4-stage ring, TMA store
# epilogue).  One tile per CTA, group l = lm.block_idx(2).  Left out: the
# persistent group scheduler loop and the pointer arrays (also written by
# the preceding kernel in grouped GEMM setups; the shapes suffice).
# Fix: cutlass_array_gemm_scheduler_reads_before_pdl_wait_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def cutlass_array_gemm_scheduler_reads_before_pdl_wait(lm, A: LM.tma3d, B: LM.tma3d, C: LM.tma3d,
                                                       Shapes: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(Shapes)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    shape  = lm.regs(shape=(1, 4), dtype=lm.i32)
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
        lm.copy(shape, Shapes, coords=(l, 0))                                   # expect-error: sync.grid-dependency
        lm.grid_dep_wait()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(l, m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(l, n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        lm.copy(shape, Shapes, coords=(l, 0))                                   # expect-error: sync.grid-dependency
        lm.grid_dep_wait()
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(l, m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
