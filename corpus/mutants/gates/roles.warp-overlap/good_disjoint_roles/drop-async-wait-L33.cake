# mutant: drop-async-wait
# original: corpus/gates/roles.warp-overlap/good_disjoint_roles.cake
# line: 33: lm.mma_wait(pending=0)
# change: deleted `lm.mma_wait(pending=0)`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 74 states; first violation: sync.race: math reads acc@math [0, 32768) while its own MMA (its group is not retired) still accesses it at `lm.copy(out, acc)` (line 34) (K=1)
# expect-any: sync.race
# GATE roles.warp-overlap (good): TMA warp 0, math warpgroup 4..7.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_disjoint_roles(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
