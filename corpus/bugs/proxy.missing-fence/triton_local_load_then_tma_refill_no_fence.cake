# BUG (proxy.missing-fence): triton-lang/triton PR #7262 ("[BACKEND] Add a
# new pass to insert fence.proxy.async for write after read hazard",
# 2025-06-22): "When loading data from smem using the generic proxy then
# writing using the async proxy we need to insert a fence before writing.
# This case was being missed in our current analysis."  In a software-
# pipelined Hopper loop a TMA-filled buffer is read with the generic proxy
# (ttg.local_load of the A tile into registers, for a wgmma with its A
# operand in registers) and the same buffer is then refilled by the next
# TMA load; without fence.proxy.async between the ld.shared and the TMA
# issue the async-proxy write may overtake the generic reads.
# Modelled: one warpgroup (num_warps=4, no warp specialization) that issues
# the TMA loads of A and B into 2-stage rings (one mbarrier per stage),
# loads A into registers, runs a register-A wgmma with B from shared memory
# and retires it (wait(0)) before refilling the stage with the loads of
# iteration k + 2.  Epilogue: TMA store after a fence.
# Fix: triton_local_load_then_tma_refill_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def triton_local_load_then_tma_refill_no_fence(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                               K: LM.i32):
    lm.assume(K >= 128)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16)
    a_frag = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg   = lm.role(warps=[0, 1, 2, 3])
    full = lm.barrier(count=2, prod=[wg], cons=[wg], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 64

    with wg:
        for k in lm.range(0, 2):
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(a_frag, smem_a[k])                           # local_load (ld.shared)
            lm.mma(acc, a_frag, smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if k + 2 < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=k + 2, barrier=full)  # expect-error: proxy.missing-fence
                smem_b.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=k + 2, barrier=full)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
