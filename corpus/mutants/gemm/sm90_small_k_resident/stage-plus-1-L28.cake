# mutant: stage-plus-1
# original: corpus/gemm/sm90_small_k_resident.cake
# line: 28: smem_b.tma_load(B, coords=(n_blk, s * 64), stage=s, barrier=full)
# change: stage: `s` -> `(s + 1) % 3`
# label: bad (sync.arrival-overflow, sync.lost-phase, data.stale-read, sync.race, sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0 (1 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 75 states; first violation: sync.arrival-overflow: load arrives on full[1] after all 1 arrivals of its phase 0 came (it still waits for 24576 transaction bytes) at `smem_a.tma_load(A, coords=(m_blk, s * 64), stage=s, barrier=full)` (line 27) (M=0, N=0)
# expect-any: sync.arrival-overflow sync.lost-phase data.stale-read sync.race sync.async-at-exit
# Hopper small-K GEMM with the whole K resident in shared memory (K = 192,
# e.g. a low-rank/LoRA projection): a TMA warp loads the three 64-wide
# K-chunks of A and B into three slots, each on its own barrier slot
# (stage=s, one phase each); one consumer warpgroup waits for all three and
# then issues the three wgmmas back to back and retires them together.
# No ring wrap-around -> no empty barrier needed (as in the paper's
# fragment), and the MMAs are retired before exit.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_small_k(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32):
    pool   = lm.smem(81920)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.bf16)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=3, prod=[load], cons=[math], init_count=1)

    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for s in lm.range(0, 3):
            smem_a.tma_load(A, coords=(m_blk, s * 64), stage=s, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, s * 64), stage=(s + 1) % 3, barrier=full)

    with math:
        for s in lm.range(0, 3):
            lm.wait(full, stage=s)
        for kk in lm.range(0, 3):
            lm.mma(acc, smem_a[kk], smem_b[kk], init=(kk == 0))
        lm.mma_commit()
        lm.mma_wait(pending=0)
        # epilogue: two 64x64 halves through one staging tile
        lm.copy(out, acc)
        lm.copy(smem_c[0], out[:, 0:64])
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.copy(smem_c[0], out[:, 64:128])
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk + 64), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
