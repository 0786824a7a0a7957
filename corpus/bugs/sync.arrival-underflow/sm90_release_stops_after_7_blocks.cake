# BUG (sync.arrival-underflow): the consumer releases ring slots only for
# the first 7 k-blocks (`if k < 7`), so from the 10th k-block on the
# producer waits for a release that never comes.  The covering values of
# the bounded check (trip counts 0..5 for a 2-slot ring) all pass; the
# proof for every trip count meets the violation at trip count 10, and that
# is a finding with parameter values (K=577), never "proof: unknown" with
# exit 0.  `# check: proof` makes the corpus gate run the proof, as `cake
# check` does by default.
# Fix: basics/release_every_block_proved.cake.
# check: proof
# expect: sync.arrival-underflow
# may-also: sync.deadlock
@cake.schedule(target="sm_90a")
def gemm_release_stops_after_7_blocks(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
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
            if k < 7:
                lm.arrive(empty, iter=k)
