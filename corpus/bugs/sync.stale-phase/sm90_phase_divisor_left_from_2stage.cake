# BUG (sync.stale-phase): explicit-phase 4-stage mainloop ported from a
# 2-stage version: the slot became k % 4 but the phase is still k // 2.
# At k = 2 the consumers wait full slot 2, phase 1 - the SECOND fill of
# slot 2 - while slot 2 has completed at most its first fill (c <= 1); with
# c = 0 (the k = 2 load not landed yet) the parity check passes a lap
# early, and the wgmma reads slot 2 while its TMA load is still writing.
# (When c = 1 the wait blocks until a completion that never comes in time;
# the checker should report the early pass.)
# Models: gemm/sm90_ws_explicit_phase.cake.
# Fix: gemm/sm90_ws_explicit_phase.cake - phase=k // 4.
# expect: sync.stale-phase
# may-also: sync.race sync.deadlock sync.lost-phase sync.arrival-underflow
@cake.schedule(target="sm_90a")
def gemm_sm90_phase_divisor_bug(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                             M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    full  = lm.barrier(count=4, prod=[producer], cons=[consumers], init_count=1)
    empty = lm.barrier(count=4, prod=[consumers], cons=[producer], init_count=2)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            if k >= 4:
                lm.wait(empty, stage=k % 4, phase=k // 4 - 1)
            smem_a.tma_load(A, coords=(m_blk, k * 64), stage=k % 4, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), stage=k % 4, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 4, phase=k // 2)  # expect-error: sync.stale-phase
            lm.mma(acc, smem_a[k % 4][m0:m0 + 64, :], smem_b[k % 4], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=k % 4)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
