# mutant: pending-plus-1
# original: corpus/gemm/sm90_basic_one_consumer.cake
# line: 36: lm.mma_wait(pending=0)
# change: pending: `0` -> `1`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 80, 144, 208, 272} (5 combinations with every trip count <= 5); block_idx 0 of grid_dim 1; 161 states; first violation: sync.race: math reads acc@math [0, 32768) while its own MMA (its group is not retired) still accesses it at `lm.copy(smem_c[0], acc)` (line 38) (M=0, N=0, K=1)
# expect-any: sync.race
# Second rung on Hopper: the smallest warp-specialized TMA GEMM - one TMA
# warp, ONE consumer warpgroup (64x128 tile), a 2-stage full/empty ring,
# derived expect_tx, one wgmma group in flight at a time, bf16 epilogue
# through a single staging tile.  No setmaxnreg.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_basic(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
