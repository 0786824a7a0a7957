# lm.assume(K >= 4096) is part of the contract: at least 64 k-blocks.  The
# producer therefore issues the first two k-blocks unconditionally (a
# prologue without `if k < k_tiles` guards) and the consumer releases every
# slot.  Correct for every allowed K; for K=1 (outside the domain) the
# second prologue load would be left in flight at exit, so a checker that
# picks values outside the lm.assume domain rejects a correct schedule.
# The fixed form of bugs/sync.arrival-underflow/sm90_assume_large_k_release_stops.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_assume_large_k_prologue(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
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
        smem_a.tma_load(A, coords=(0, 0),  iter=0, barrier=full)
        smem_b.tma_load(B, coords=(0, 0),  iter=0, barrier=full)
        smem_a.tma_load(A, coords=(0, 64), iter=1, barrier=full)
        smem_b.tma_load(B, coords=(0, 64), iter=1, barrier=full)
        for k in lm.range(2, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
    with consumers:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][0:64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
