# A tunable Hopper warp-specialized GEMM: corpus/gemm/sm90_ws_4stage.cake
# with its choices made parameters (docs/search.md). C[M,N] = A[M,K] . B[N,K]^T,
# bf16 in, f32 accumulate, bf16 out; CTA tile 128 x BN x 64.
#   BN      the CTA tile's N extent (the wgmma N, the B tile rows, the C tile)
#   STAGES  the depth of the TMA ring (full/empty mbarrier pipeline)
#   CREGS   the consumers' setmaxnreg budget (the producer keeps 40): the
#           register split between the two roles
# smem: STAGES x (16 KiB of A + BN x 128 B of B) + 2 x 64 x BN x 2 B of C.
# `cake tune` binds each choice as a constant (BN = 128) and checks every
# candidate: the sm_90a smem limit and the register budget rule out part of
# the grid; lm.assume below rules out the rest before anything runs.
@cake.schedule(target="sm_90a")
def gemm_sm90_ws_tune(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                      M: LM.i32, N: LM.i32, K: LM.i32,
                      BN: LM.i32, STAGES: LM.i32, CREGS: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    lm.assume(BN >= 64)
    lm.assume(BN <= 256)
    lm.assume(BN % 64 == 0)
    lm.assume(STAGES >= 2)
    b_off = STAGES * 16384
    c_off = b_off + STAGES * BN * 128
    pool   = lm.smem(c_off + 256 * BN)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=STAGES, swizzle="128B")
    smem_b = pool.view(offset=b_off, shape=(BN, 64),  dtype=lm.bf16, stages=STAGES, swizzle="128B")
    smem_c = pool.view(offset=c_off, shape=(64, BN),  dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, BN), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=CREGS)

    pipe  = lm.pipeline(stages=STAGES)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * BN

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - STAGES)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        # epilogue
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
