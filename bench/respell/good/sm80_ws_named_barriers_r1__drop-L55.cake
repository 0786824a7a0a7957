# respells: corpus/mutants/gemm/sm80_ws_named_barriers/drop-named-barrier-L55.cake
# change: the parity branches negated and swapped (`if k % 2 != 0:` first), the first-lap guard
# as `not k < 2`, the release guard as k < k_tiles - 2, the copies with stage=k % 2 and the
# operands smem_a[k % 2], the barriers declared in another order, the roles renamed.
@cake.schedule(target="sm_80")
def gemm_sm80_ws_named(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    smem_b = pool.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    dma  = lm.role(warps=[0, 1])
    mma  = lm.role(warps=[4, 5, 6, 7])
    free1  = lm.named_barrier(roles=[mma, dma])
    ready1 = lm.named_barrier(roles=[dma, mma])
    free0  = lm.named_barrier(roles=[dma, mma])
    ready0 = lm.named_barrier(roles=[mma, dma])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mma:
        for k in lm.range(0, k_tiles):
            if k % 2 != 0:
                lm.sync(ready1)
                lm.mma(acc, smem_a[k % 2], smem_b[k % 2], init=(k == 0))
                if k < k_tiles - 2:
                    lm.bar_arrive(free1)
            else:
                lm.mma(acc, smem_a[k % 2], smem_b[k % 2], init=(k == 0))
                if k < k_tiles - 2:
                    lm.bar_arrive(free0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))

    with dma:
        for k in lm.range(0, k_tiles):
            if k % 2 != 0:
                if not k < 2:
                    lm.sync(free1)
                smem_a.cp_async(A, coords=(m_blk, k * 32), stage=k % 2)
                smem_b.cp_async(B, coords=(n_blk, k * 32), stage=k % 2)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(ready1)
            else:
                if not k < 2:
                    lm.sync(free0)
                smem_a.cp_async(A, coords=(m_blk, k * 32), stage=k % 2)
                smem_b.cp_async(B, coords=(n_blk, k * 32), stage=k % 2)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(ready0)
