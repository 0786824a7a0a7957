# mutant: iter-minus-lap
# original: corpus/gates/mma.shape-mismatch/good_b_rows_vs_acc_cols.cake
# line: 25: smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
# change: iter: `k` -> `k - 2`
# label: bad (sync.arrival-overflow, data.stale-read, sync.lost-phase, sync.race, sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), K in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 151 states; first violation: sync.arrival-overflow: load arrives on full[0] after all 1 arrivals of its phase 0 came (it still waits for 24576 transaction bytes) at `smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)` (line 26) (K=1)
# expect-any: sync.arrival-overflow data.stale-read sync.lost-phase sync.race sync.async-at-exit
# GATE mma.shape-mismatch (good): acc 64x128 = a 64x64 . (b 128x64)^T.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_shape_match(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
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
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k - 2, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
