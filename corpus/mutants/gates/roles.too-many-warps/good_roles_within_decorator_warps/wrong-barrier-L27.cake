# mutant: wrong-barrier
# original: corpus/gates/roles.too-many-warps/good_roles_within_decorator_warps.cake
# line: 27: smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
# change: barrier: `full` -> `empty`
# label: bad (struct.wrong-direction, sync.arrival-overflow, data.stale-read, sync.race, sync.async-at-exit, sync.lost-phase) by the explicit-state simulator (encoder/simulator.h) and a direct computation from the declarations, K in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 774 states; first violation: role load arrives on barrier empty (line 27) but is not one of its producers
# expect-any: struct.wrong-direction sync.arrival-overflow data.stale-read sync.race sync.async-at-exit sync.lost-phase
# GATE roles.too-many-warps (good): warps=12 covers the math warpgroup
# 8..11 (warps 1..7 idle).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a", warps=12)
def gemm_warps_12(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[8, 9, 10, 11])
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
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=empty)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
