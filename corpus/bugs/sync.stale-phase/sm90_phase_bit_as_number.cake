# BUG (sync.stale-phase): CUTLASS's producer PipelineState starts with
# phase BIT 1 ("the ring starts empty" parity trick); transcribed as a
# phase NUMBER the producer's empty wait becomes phase=k//4 + 1.
# On the first lap it waits for phase 1 - the second release of the slot -
# and passes at once because c = 0 has the other parity; later it passes
# with c = k//4 instead of the meant k//4 + 2.  The hardware parities
# happen to equal those of the correct phase k//4 - 1, so this kernel even
# runs correctly, but the schedule states the wrong phase: IR.md phases are
# numbers, and a wait that passes with c != n + 1 is a stale-phase finding.
# Fix: gemm/sm90_ws_explicit_phase.cake - phase=k//4 - 1, skipped while
# k < 4 (or use iter=k - 4, which passes at once while negative).
# expect: sync.stale-phase
# may-also: sync.arrival-underflow
@cake.schedule(target="sm_90a")
def gemm_sm90_phase_bit_as_number(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
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
            lm.wait(empty, stage=k % 4, phase=k // 4 + 1)  # expect-error: sync.stale-phase
            smem_a.tma_load(A, coords=(m_blk, k * 64), stage=k % 4, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), stage=k % 4, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 4, phase=k // 4)
            lm.mma(acc, smem_a[k % 4][m0:m0 + 64, :], smem_b[k % 4], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=k % 4)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
