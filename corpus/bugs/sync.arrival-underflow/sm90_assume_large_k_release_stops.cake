# BUG (sync.arrival-underflow): the consumer stops releasing ring slots
# after 40 k-blocks (a debugging guard left in), so the producer waits
# forever on the 41st release.  The schedule assumes K >= 4096, i.e. at
# least 64 k-blocks: it hangs for EVERY allowed K.  A checker that picks
# its parameter values outside the lm.assume domain (K=1: one k-block,
# no release needed) passes it; the covering values must be drawn from the
# domain (K=4096 and up).
# Fix: basics/assume_large_k_prologue.cake.
# expect: sync.arrival-underflow
# may-also: sync.deadlock
@cake.schedule(target="sm_90a")
def gemm_assume_large_k_release_stops(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    lm.assume(K >= 4096)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7], regs=232)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)  # expect-error: sync.arrival-underflow
            smem_a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
    with consumers:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][0:64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if k < 40:
                lm.arrive(empty, iter=k)
