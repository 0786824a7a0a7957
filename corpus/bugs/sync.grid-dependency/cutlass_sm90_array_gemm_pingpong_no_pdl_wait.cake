# BUG (sync.grid-dependency): NVIDIA/cutlass issue #2760 "[BUG] Race
# condition causing correctness issue of SM90 array/grouped gemms when PDL
# enabled" (2025-11-11), fixed by NVIDIA/cutlass PR #2719 "Support PDL for
# SM90 Array TMA GEMM".  The issue names both array kernels:
# sm90_gemm_array_tma_warpspecialized_cooperative.hpp (written as
# cutlass_sm90_array_gemm_no_pdl_wait.cake) and
# sm90_gemm_array_tma_warpspecialized_pingpong.hpp, this one.  Neither
# called cutlass::arch::wait_on_dependent_grids(): launched with PDL, the
# producer warp's TMA loads of the grouped operands may read what the
# preceding kernel in the stream is still writing.
# The ping-pong kernel is persistent: the producer warpgroup loads every
# tile of the CTA's share in order through one 4-stage ring, the two math
# warpgroups take alternate tiles (tile t goes to warpgroup t % 2) and hand
# the mainloop and the epilogue to each other through
# math_wg_order_barrier (an OrderedSequenceBarrier of depth 2: order_mma,
# order_epi below, stage= slot i = "warpgroup i may start"), each writing
# a whole 64x128 tile through two shared 64x64 TMA-store slots.
# Modelled: one group l = lm.block_idx(1) of the array (its problem shape
# M x N x K); A is written by the preceding kernel
# (lm.grid_dependency(A): a MoE's permuted activations, say), B is weights.
# Left out: the group tile scheduler's walk over several groups and the
# device-side tensormap updates (tensor maps are not IR objects).
# Fix: cutlass_sm90_array_gemm_pingpong_no_pdl_wait_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def cutlass_sm90_array_gemm_pingpong_no_pdl_wait(lm, A: LM.tma3d, B: LM.tma3d, D: LM.tma3d,
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
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(l, m_blk, k * 64), iter=it, barrier=full)  # expect-error: sync.grid-dependency
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
