# GATE struct.slot-out-of-range (bad, constant bounds): the small-K resident
# GEMM (gemm/sm90_small_k_resident.cake) after K was cut from 256 to 192:
# the views and the barrier went from 4 to 3 slots, but the consumer's
# "wait for every chunk" loop still runs lm.range(0, 4) - its last
# iteration waits stage=3 of a 3-slot barrier.  With constant loop bounds
# the structural check can evaluate every index.
# Fix: good_resident_chunks_wait_loop.cake (lm.range(0, 3)).
# expect: struct.slot-out-of-range
# may-also: sync.deadlock
@cake.schedule(target="sm_90a")
def gemm_small_k_wait_loop_4(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32):
    pool   = lm.smem(81920)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=3, prod=[load], cons=[math], init_count=1)

    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for s in lm.range(0, 3):
            smem_a.tma_load(A, coords=(m_blk, s * 64), stage=s, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, s * 64), stage=s, barrier=full)

    with math:
        for s in lm.range(0, 4):  # expect-error: struct.slot-out-of-range
            lm.wait(full, stage=s)  # expect-error: struct.slot-out-of-range
        for kk in lm.range(0, 3):
            lm.mma(acc, smem_a[kk], smem_b[kk], init=(kk == 0))
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(smem_c[0], out[:, 0:64])
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.copy(smem_c[0], out[:, 64:128])
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk + 64), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
