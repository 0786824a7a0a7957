# respells: corpus/mutants/gemm/sm80_ws_named_barriers/drop-named-barrier-L37.cake
# change: the k loop unrolled by two (a loop over pairs of k-blocks: slot 0 always, slot 1
# under `if k1 < k_tiles`), so no parity branch; the first-lap guard as p > 0, the release
# guards as k0 + 2 < k_tiles and k1 + 2 < k_tiles.
@cake.schedule(target="sm_80")
def gemm_sm80_ws_named(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
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
    pairs   = lm.cdiv(k_tiles, 2)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with loader:
        for p in lm.range(0, pairs):
            k0 = 2 * p
            k1 = 2 * p + 1
            smem_a.cp_async(A, coords=(m_blk, k0 * 32), iter=k0)
            smem_b.cp_async(B, coords=(n_blk, k0 * 32), iter=k0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.bar_arrive(full0)
            if k1 < k_tiles:
                if p > 0:
                    lm.sync(empty1)
                smem_a.cp_async(A, coords=(m_blk, k1 * 32), iter=k1)
                smem_b.cp_async(B, coords=(n_blk, k1 * 32), iter=k1)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(full1)

    with math:
        for p in lm.range(0, pairs):
            k0 = 2 * p
            k1 = 2 * p + 1
            lm.sync(full0)
            lm.mma(acc, smem_a[k0], smem_b[k0], init=(p == 0))
            if k0 + 2 < k_tiles:
                lm.bar_arrive(empty0)
            if k1 < k_tiles:
                lm.sync(full1)
                lm.mma(acc, smem_a[k1], smem_b[k1], init=False)
                if k1 + 2 < k_tiles:
                    lm.bar_arrive(empty1)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
