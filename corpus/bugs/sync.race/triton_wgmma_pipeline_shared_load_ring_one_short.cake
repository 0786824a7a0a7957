# BUG (sync.race): Triton's Hopper software pipeliner, as fixed by
# triton-lang/triton PR #8554 ("[SWP] Fix wgmma pipelined operand
# underallocation", 2025-10-27): "We were missing one extra buffer required
# for correct wgmma pipelining in case where the path from load to wgmma was
# more complicated than single def-use chain.  In particular, if load was
# used by two wgmma ops, we would end up with an incorrect pipeline
# scheduling, introducing race condition on operand access between shmem
# store and mma read."  A pipelined (asynchronous) wgmma is retired one
# iteration late (warp_group_dot_wait{pendings = 1}), and the next stage's
# loads are issued at the top of the iteration, before that wait: a ring
# that a load fills num_stages - 1 iterations ahead needs num_stages + 1
# buffers, the extra one for the wgmma still in flight.  The buffer count
# added that extra buffer for a load with one wgmma use, not for a load
# feeding two.
# Modelled: num_stages = 3 (loads two iterations ahead), one warpgroup
# (num_warps=4, no warp specialization) that issues the TMA loads and
# computes; the A tile feeds two dots (two N halves, B0 and B1, into two
# accumulators) and got 3 buffers, B0/B1 (one use each) got the extra
# buffer (4); one mbarrier per A buffer and per B buffer.  At the top of
# iteration k the load of A for k + 2 goes into A buffer (k + 2) % 3 =
# (k - 1) % 3, which iteration k - 1's two wgmmas still read.  Epilogue:
# TMA stores after wait(0).
# Fix: triton_wgmma_pipeline_shared_load_ring_one_short_fixed.cake (4 A
# buffers).
# expect: sync.race
# may-also: data.stale-read sync.arrival-overflow sync.lost-phase sync.stale-phase
@cake.schedule(target="sm_90a")
def triton_wgmma_pipeline_shared_load_ring_one_short(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                                     K: LM.i32):
    lm.assume(K >= 128)
    pool   = lm.smem(131072)
    smem_a  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b0 = pool.view(offset=24576, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b1 = pool.view(offset=57344, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=90112, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc0   = lm.regs(shape=(64, 64), dtype=lm.f32)
    acc1   = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg     = lm.role(warps=[0, 1, 2, 3])
    full_a = lm.barrier(count=3, prod=[wg], cons=[wg], init_count=1)
    full_b = lm.barrier(count=4, prod=[wg], cons=[wg], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with wg:
        for k in lm.range(0, 2):                                 # prologue: stages 0, 1
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full_a)
            smem_b0.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full_b)
            smem_b1.tma_load(B, coords=(n_blk + 64, k * 64), iter=k, barrier=full_b)
        for k in lm.range(0, k_tiles):
            if k + 2 < k_tiles:                                  # stage 0: loads for k + 2
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full_a)  # expect-error: sync.race
                smem_b0.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full_b)
                smem_b1.tma_load(B, coords=(n_blk + 64, (k + 2) * 64), iter=k + 2, barrier=full_b)
            lm.wait(full_a, iter=k)
            lm.wait(full_b, iter=k)
            lm.mma(acc0, smem_a[k], smem_b0[k], init=(k == 0))  # expect-error: sync.race
            lm.mma(acc1, smem_a[k], smem_b1[k], init=(k == 0))  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=1)
        lm.mma_wait(pending=0)
        lm.copy(smem_c[0], acc0)
        lm.copy(smem_c[1], acc1)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        smem_c.tma_store(C, coords=(m_blk, n_blk + 64), stage=1)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
