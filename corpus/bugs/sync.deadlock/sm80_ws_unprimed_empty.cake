# BUG (sync.deadlock): warp-specialized Ampere GEMM whose loader bar.sync's
# empty0 before EVERY fill of slot 0 - including the first, when no MMA
# warp has consumed anything.  Generation 0 of empty0 needs the MMA warps'
# bar.arrive after k-block 0, and they are blocked in bar.sync(full0)
# waiting for the fill that the loader will not issue.  Two named barriers,
# one cycle.
# Models: gemm/sm80_ws_named_barriers.cake with the `if k >= 2` guard lost
# on slot 0.
# Fix: gemm/sm80_ws_named_barriers.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def gemm_sm80_ws_unprimed_empty(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    smem_b = pool.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    loader = lm.role(warps=[0, 1])
    math   = lm.role(warps=[4, 5, 6, 7])
    full0  = lm.named_barrier(roles=[loader, math])
    full1  = lm.named_barrier(roles=[loader, math])
    empty0 = lm.named_barrier(roles=[loader, math])
    empty1 = lm.named_barrier(roles=[loader, math])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with loader:
        for k in lm.range(0, k_tiles):
            if k % 2 == 0:
                lm.sync(empty0)  # expect-error: sync.deadlock
                smem_a.cp_async(A, coords=(m_blk, k * 32), iter=k)
                smem_b.cp_async(B, coords=(n_blk, k * 32), iter=k)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(full0)
            else:
                if k >= 2:
                    lm.sync(empty1)
                smem_a.cp_async(A, coords=(m_blk, k * 32), iter=k)
                smem_b.cp_async(B, coords=(n_blk, k * 32), iter=k)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(full1)

    with math:
        for k in lm.range(0, k_tiles):
            if k % 2 == 0:
                lm.sync(full0)  # expect-error: sync.deadlock
                lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
                if k + 2 < k_tiles:
                    lm.bar_arrive(empty0)
            else:
                lm.sync(full1)
                lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
                if k + 2 < k_tiles:
                    lm.bar_arrive(empty1)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
