# mutant: arrive-count-plus-1
# original: corpus/gates/mma.warpgroup/good_group4_instances.cake
# line: 36: lm.arrive(empty, iter=k)
# change: added `count=2`
# label: bad (sync.arrival-overflow, sync.race, sync.lost-phase, data.stale-read) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 1190 states; first violation: sync.arrival-overflow: phase 0 of empty[0] gets 4 arrivals, but the barrier expects 2 (init_count): the extra ones complete a phase nobody meant to complete at `lm.arrive(empty, iter=k, count=2)` (line 36) (K=1)
# expect-any: sync.arrival-overflow sync.race sync.lost-phase data.stale-read
# GATE mma.warpgroup (good): group=4 makes each warpgroup an instance; each
# multiplies its 64-row slice of the A slot.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_group4(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k, count=2)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk + m0, n_blk))
