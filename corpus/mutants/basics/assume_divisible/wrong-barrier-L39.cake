# mutant: wrong-barrier
# original: corpus/basics/assume_divisible.cake
# line: 39: lm.arrive(empty, iter=k)
# change: barrier: `empty` -> `full`
# label: bad (struct.wrong-direction, sync.arrival-overflow, sync.arrival-underflow, data.stale-read) by the explicit-state simulator (encoder/simulator.h) and a direct computation from the declarations, K in {256, 320, 384, 448, 512, 576}; block_idx 0 of grid_dim 1; 253 states; first violation: role math arrives on barrier full (line 39) but is not one of its producers
# expect-any: struct.wrong-direction sync.arrival-overflow sync.arrival-underflow data.stale-read
# lm.assume facts about the scalar parameters: K is a positive multiple of
# 64 and at least one full pipeline (K >= 256), so every k-block is full
# and the ring always wraps; the checks must hold for all such K (and may
# use the facts, e.g. to prove that k_tiles = K // 64 >= 4).
# A Hopper 4-stage mainloop with a single consumer warpgroup.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_assume_divisible(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K % 64 == 0)
    lm.assume(K >= 256)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = K // 64
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(full, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
