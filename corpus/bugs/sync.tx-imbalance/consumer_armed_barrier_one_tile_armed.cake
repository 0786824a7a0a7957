# Broken twin of corpus/basics/consumer_armed_barrier.cake: the consumer
# arms the full barrier with the bytes of one tile while the loader brings
# two (FlashMLA arms one 64x64 tile per barrier; here a slot holds two). The
# phase completes when the first tile lands, and the MMA reads the other
# tile's slot while its copy is still in flight.
# expect: sync.tx-imbalance
# may-also: sync.race sync.async-at-exit sync.deadlock data.stale-read
@cake.schedule(target="sm_90a")
def consumer_armed_barrier(lm, A: LM.tma2d, B: LM.tma2d, O: LM.gmem, n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[load, math], cons=[math], init_count=1)
    empty = lm.barrier(count=2, prod=[math], cons=[load], init_count=1)

    with load:
        for k in lm.range(0, n_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full)

    with math:
        for k in lm.range(0, n_tiles):
            lm.expect_tx(full, 64 * 64 * 2, iter=k)  # expect-error: sync.tx-imbalance
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(O, acc, coords=(lm.block_idx(0) * 64, 0))
