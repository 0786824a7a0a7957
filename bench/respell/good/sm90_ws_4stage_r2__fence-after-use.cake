# respells: corpus/mutants/gemm/sm90_ws_4stage/fence-after-use-L58.cake
# change: the first k-block written out before the loops (producer and consumers), the loops
# from 1, the producer's wait as iter=k - 4 under a guard `not (k < 4)` (a wait it could
# skip), the consumers' accumulator cleared by init=True on the peeled MMA, the epilogue's
# slot named by a variable, the B load before the A load.
@cake.schedule(target="sm_90a")
def gemm_sm90_ws_4stage(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                        M: LM.i32, N: LM.i32, K: LM.i32):
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

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        smem_b.tma_load(B, coords=(n_blk, 0), iter=0, barrier=full)
        smem_a.tma_load(A, coords=(m_blk, 0), iter=0, barrier=full)
        for k in lm.range(1, k_tiles):
            if not (k < 4):
                lm.wait(empty, iter=k - 4)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.wait(full, iter=0)
        lm.mma(acc, smem_a[0][m0:m0 + 64, :], smem_b[0], init=True)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.arrive(empty, iter=0)
        for k in lm.range(1, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        slot = lm.instance()
        lm.copy(smem_c[slot], acc)
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=slot)
        lm.tma_store_commit()
        lm.fence_proxy()
        lm.tma_store_wait(pending=0)
