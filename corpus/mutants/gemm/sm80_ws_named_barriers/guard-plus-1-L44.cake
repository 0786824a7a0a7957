# mutant: guard-plus-1
# original: corpus/gemm/sm80_ws_named_barriers.cake
# line: 44: if k >= 2:
# change: guard: `2` -> `3`
# label: benign: no violation under exhaustive exploration with K in {1, 48, 80, 112, 144}; block_idx 0 of grid_dim 1; 232 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Ampere warp-specialized GEMM synchronized with named barriers only
# (the pre-Hopper "CudaDMA" / early CUTLASS warp-specialized pattern):
# 2 producer warps issue cp.async for a 2-slot ring, retire them
# (cp_async_wait pending=0) and bar.arrive full<s>; 4 MMA warps bar.sync
# full<s>, run mma.sync on the slot and bar.arrive empty<s>; the producer
# bar.sync's empty<s> before refilling slot s.
# Named barriers have no slots, so each ring slot gets its own pair
# (full0/empty0 for even k, full1/empty1 for odd k).  Generation pairing:
# full<s> gen g = (producer arrive, consumer sync) of k = 2g+s;
# empty<s> gen g = consumer arrive after k = 2g+s, producer sync before
# k = 2g+s+2 - so the consumer only arrives when such a refill exists.
# (the original's expectation: see the label above)
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
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with loader:
        for k in lm.range(0, k_tiles):
            if k % 2 == 0:
                if k >= 2:
                    lm.sync(empty0)
                smem_a.cp_async(A, coords=(m_blk, k * 32), iter=k)
                smem_b.cp_async(B, coords=(n_blk, k * 32), iter=k)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(full0)
            else:
                if k >= 3:
                    lm.sync(empty1)
                smem_a.cp_async(A, coords=(m_blk, k * 32), iter=k)
                smem_b.cp_async(B, coords=(n_blk, k * 32), iter=k)
                lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.bar_arrive(full1)

    with math:
        for k in lm.range(0, k_tiles):
            if k % 2 == 0:
                lm.sync(full0)
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
