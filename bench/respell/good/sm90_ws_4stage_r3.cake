# respells: corpus/gemm/sm90_ws_4stage.cake
# change: the ring depth and the K block as parameters fixed by lm.assume (S == 4, BK == 64)
# instead of constants in the ring indices, the coordinates and the tile count; the consumers'
# ring ops as stage=k % S with explicit phase=k // S.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_ws_4stage(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                        M: LM.i32, N: LM.i32, K: LM.i32, S: LM.i32, BK: LM.i32):
    lm.assume(S == 4)
    lm.assume(BK == 64)
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
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

    k_tiles = lm.cdiv(K, BK)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - S)
            smem_a.tma_load(A, coords=(m_blk, k * BK), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * BK), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % S, phase=k // S)
            lm.mma(acc, smem_a[k % S][m0:m0 + 64, :], smem_b[k % S], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=k % S, phase=k // S)
        # epilogue
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
