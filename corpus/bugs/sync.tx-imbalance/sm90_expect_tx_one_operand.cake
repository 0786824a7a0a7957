# BUG (sync.tx-imbalance): the hand-written expect_tx announces the bytes of
# ONE operand tile (16384) while two TMA loads (A and B, 16384 each)
# complete on the same slot and phase: 32768 bytes land against 16384
# expected.  The phase can complete when the first tile lands - the
# consumers then read the B slot while it is still being written - and
# the surplus bytes leak into the next phase of the slot.
# Models: a kernel that used to load B with cp.async and only A with TMA.
# Fix: gemm/sm90_ws_explicit_expect_tx.cake (32768), or omit expect_tx and
# let lowering derive it (gemm/sm90_ws_4stage.cake).
# expect: sync.tx-imbalance
# may-also: sync.race data.stale-read sync.async-at-exit
@cake.schedule(target="sm_90a")
def gemm_sm90_expect_tx_one_operand(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
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
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            lm.expect_tx(full, 128 * 64 * 2, iter=k)  # expect-error: sync.tx-imbalance
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)  # expect-error: sync.tx-imbalance

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
