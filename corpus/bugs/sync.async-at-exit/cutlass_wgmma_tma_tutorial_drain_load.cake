# BUG (sync.async-at-exit): CuTe's Hopper tutorial
# examples/cute/tutorial/hopper/wgmma_tma_sm90.cu, as reported in
# NVIDIA/cutlass issue #2944 ("Out-of-bounds TMA access in wgmma_tma_sm90.cu
# during pipeline drain") and fixed by PR #2945.  One 128-thread
# warpgroup is both consumer and producer: a prologue issues K_PIPE_MAX = 3
# TMA loads (A and B of k tiles 0..2, arrive_and_expect_tx on
# producer_mbar[pipe]); the main loop runs while k_tile_count >
# -K_PIPE_MAX, i.e. once per k tile: wait producer_mbar[read_pipe], wgmma,
# warpgroup_wait<0>, arrive on consumer_mbar[read_pipe]; then warp 0's
# elected lane waits consumer_mbar[write_pipe] and issues the TMA loads of
# k tile k + 3 with no k_tile_count > 0 guard.  The last K_PIPE_MAX
# iterations (the drain) therefore issue loads past the last k tile
# (out-of-bounds coordinates, the reported bug) into stages nobody waits
# for again: the CTA can exit with those bulk copies still writing its
# shared memory.
# Fix (PR #2945): issue the loads only while k_tile_count > 0 (here:
# if k + 3 < n_k); the drain only consumes prefetched stages.
# Written in CAKE IR: one role of 4 warps (one instance: the tutorial's
# whole CTA), a 3-slot ring addressed with iter=, producer_mbar as `full`
# (arrive-and-expect_tx derived from the two loads) and consumer_mbar as
# `empty`.  The prologue is unguarded in the tutorial (it assumes at least
# K_PIPE_MAX k tiles) and the fix does not touch it, so both files assume
# n_k >= 3.  Left out: the register epilogue (axpby to global).
# Fix: cutlass_wgmma_tma_tutorial_drain_load_fixed.cake.
# expect: sync.async-at-exit
@cake.schedule(target="sm_90a")
def cutlass_wgmma_tma_tutorial_drain_load(lm, A: LM.tma2d, B: LM.tma2d, n_k: LM.i32):
    lm.assume(n_k >= 3)
    pool = lm.smem(98304)
    sA   = pool.view(offset=0,     shape=(128, 64), dtype=lm.f16, stages=3, swizzle="128B")
    sB   = pool.view(offset=49152, shape=(128, 64), dtype=lm.f16, stages=3, swizzle="128B")
    acc  = lm.regs(shape=(128, 128), dtype=lm.f32)

    cta = lm.role(warps=[0, 1, 2, 3])

    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[cta], cons=[cta], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[cta], cons=[cta], init_count=1, pipeline=pipe)

    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with cta:
        for k in lm.range(0, 3):
            sA.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            sB.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
        for k in lm.range(0, n_k):
            lm.wait(full, iter=k)
            lm.mma(acc, sA[k], sB[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
            lm.wait(empty, iter=k)
            sA.tma_load(A, coords=(m_blk, (k + 3) * 64), iter=k + 3, barrier=full)   # expect-error: sync.async-at-exit
            sB.tma_load(B, coords=(n_blk, (k + 3) * 64), iter=k + 3, barrier=full)   # expect-error: sync.async-at-exit
