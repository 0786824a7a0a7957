# mutant: trip-minus-1
# original: corpus/layout/good_mma_swizzle_64b_rows.cake
# line: 42: for k in lm.range(0, k_tiles):
# change: loop bound: `k_tiles` -> `k_tiles - 1`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), M = 1, N = 1, K in {1, 48, 80, 112, 144, 272} (6 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 360 states; first violation: sync.async-at-exit: every role has exited while the TMA load into smem_a[0] bytes [0, 8192) has not landed at `smem_a.tma_load(A, coords=(m_blk, k * 32), iter=k, barrier=full)` (line 37) (M=1, N=1, K=1)
# expect-any: sync.async-at-exit
# LAYOUT mma.swizzle (good): a K tile of 32 bf16 values gives 64-byte rows,
# and the views use 64B swizzle: the wgmma descriptor's 64B K-major atom (8
# rows of 64 bytes) describes them exactly. Bad twin: bad_mma_swizzle_128b_on_64_byte_rows.
#
# The standard sm_90a warp-specialized GEMM (CUTLASS
# KernelTmaWarpSpecializedCooperative shape): a producer warpgroup
# (setmaxnreg 40) loads 128x64 A and BNx64 B tiles into a 4-slot ring; two
# consumer warpgroups (group=4, setmaxnreg 232) each multiply 64 rows of A
# with B (wgmma) and store their 64 x BN result through TMA.
# (the original's expectation: see the label above)

@cake.schedule(target="sm_90a")
def good_mma_swizzle_64b_rows(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    smem_b = pool.view(offset=65536,  shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 32), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 32), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles - 1):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        # epilogue: each instance stages its 64 rows and stores them
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
