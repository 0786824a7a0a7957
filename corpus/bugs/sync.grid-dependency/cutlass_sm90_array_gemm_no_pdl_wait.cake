# BUG (sync.grid-dependency): NVIDIA/cutlass issue #2760 "[BUG] Race
# condition causing correctness issue of SM90 array/grouped gemms when PDL
# enabled" (2025-11-11), fixed by NVIDIA/cutlass PR #2719 "Support PDL for
# SM90 Array TMA GEMM".  sm90_gemm_array_tma_warpspecialized_cooperative.hpp
# (and _pingpong.hpp) had no cutlass::arch::wait_on_dependent_grids() at
# all: launched with PDL, the kernel "may prematurely run before the
# previous kernel finishes and flushes its dependent data to main memory"
# - its producer warp's TMA loads read the operands the preceding kernel
# is still writing (observed rarely on H200).
# Modelled: a cooperative grouped GEMM CTA (a TMA producer warpgroup, two
# consumer warpgroups splitting the 128-row tile, 4-stage ring, TMA store
# epilogue), group l = lm.block_idx(2), whose A operand is written by the
# preceding kernel in the stream (lm.grid_dependency(A): a MoE's permuted
# activations, say).  Left out: the persistent group scheduler loop and the
# device-side problem shapes and pointer arrays (issue #2962, already in
# this directory as cutlass_array_gemm_scheduler_reads_before_pdl_wait).
# Fix: cutlass_sm90_array_gemm_no_pdl_wait_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def cutlass_sm90_array_gemm_no_pdl_wait(lm, A: LM.tma3d, B: LM.tma3d, C: LM.tma3d, K: LM.i32):
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
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(l, m_blk, k * 64), iter=k, barrier=full)   # expect-error: sync.grid-dependency
            smem_b.tma_load(B, coords=(l, n_blk, k * 64), iter=k, barrier=full)

    with consumers:
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
