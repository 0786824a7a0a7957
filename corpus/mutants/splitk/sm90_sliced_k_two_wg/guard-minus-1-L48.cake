# mutant: guard-minus-1
# original: corpus/splitk/sm90_sliced_k_two_wg.cake
# line: 48: if lm.instance() == 1:
# change: guard: `1` -> `0`
# label: bad (data.discarded-product) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 272, 528}; block_idx 0 of grid_dim 1; 342 states; first violation: data.discarded-product: consumers[1]'s lm.sync is the last operation of consumers[1], and acc element (0, 0) still holds an MMA product that this instance has not read since: the product is lost (computed, then never used or stored before the instance exits) at `lm.sync(red)` (line 50) (K=272)
# expect-any: data.discarded-product
# Hopper "sliced-K" GEMM for small M x N and large K (decode-time
# projections): ONE 64x128 output tile per CTA, and the two consumer
# warpgroups split its K loop - instance i consumes the k-blocks with
# k % 2 == i (lm.range(i, k_tiles, 2)) from the shared 4-slot TMA ring.
#  * each k-block is consumed by exactly one warpgroup: empty init_count=1.
#  * slot k%4 is always consumed by the same warpgroup (4 is even), which
#    waits its phases in order - no lap-early phase can occur.
#  * reduction: instance 1 writes its f32 partial to smem, fences nothing
#    (generic -> generic), bar.sync `red` with instance 0, which adds it to
#    its own accumulator, converts and TMA-stores the tile.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sliced_k(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(147456)
    smem_a = pool.view(offset=0,      shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_r = pool.view(offset=98304,  shape=(64, 128), dtype=lm.f32,  stages=1)
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    other  = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    red   = lm.named_barrier(roles=[consumers])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        lm.fill(acc, 0.0)
        for k in lm.range(lm.instance(), k_tiles, 2):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        if lm.instance() == 0:
            lm.copy(smem_r[0], acc)
        lm.sync(red)
        if lm.instance() == 0:
            lm.copy(other, smem_r[0])
            lm.binary(acc, acc, other, op="add")
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
