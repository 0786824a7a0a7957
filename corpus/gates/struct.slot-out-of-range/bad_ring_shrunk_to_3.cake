# GATE struct.slot-out-of-range (bad): the explicit-phase 4-stage mainloop
# (gemm/sm90_ws_explicit_phase.cake) shrunk to 3 stages to fit a bigger
# epilogue: views and barriers now have 3 slots, but the slot expressions
# still say k % 4 - at k = 3 every stage= names slot 3 of a 3-slot
# barrier / view.
# Fix: good_ring_shrunk_to_3.cake (k % 3, k // 3 everywhere - or iter=k).
# expect: struct.slot-out-of-range
@cake.schedule(target="sm_90a")
def gemm_slot_out_of_range(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                             M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=98304,  shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    full  = lm.barrier(count=3, prod=[producer], cons=[consumers], init_count=1)
    empty = lm.barrier(count=3, prod=[consumers], cons=[producer], init_count=2)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            if k >= 4:
                lm.wait(empty, stage=k % 4, phase=k // 4 - 1)
            smem_a.tma_load(A, coords=(m_blk, k * 64), stage=k % 4, barrier=full)  # expect-error: struct.slot-out-of-range
            smem_b.tma_load(B, coords=(n_blk, k * 64), stage=k % 4, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 4, phase=k // 4)  # expect-error: struct.slot-out-of-range
            lm.mma(acc, smem_a[k % 4][m0:m0 + 64, :], smem_b[k % 4], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=k % 4)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
