# mutant: guard-minus-1
# original: corpus/gemm/sm90_ws_explicit_phase.cake
# line: 33: if k >= 4:
# change: guard: `4` -> `3`
# label: benign: no violation under exhaustive exploration with M = 0, N = 0, K in {1, 80, 144, 208, 272, 528} (6 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 435 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# The 4-stage Hopper warp-specialized mainloop written with explicit slot
# and phase numbers instead of iter= (what a transcription of CUTLASS's
# PipelineState {index, phase} looks like in CAKE - with phase NUMBERS, not
# parity bits):
#   full  wait : slot k%4, phase k//4
#   empty wait : slot k%4, phase k//4 - 1, skipped on the first lap
#   arrives    : stage=k%4 (the phase of an arrive is its instance's count
#                of earlier arrives on that slot = k//4)
# Equivalent to gemm/sm90_ws_4stage.cake.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_explicit_phase(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                             M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    full  = lm.barrier(count=4, prod=[producer], cons=[consumers], init_count=1)
    empty = lm.barrier(count=4, prod=[consumers], cons=[producer], init_count=2)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            if k >= 3:
                lm.wait(empty, stage=k % 4, phase=k // 4 - 1)
            smem_a.tma_load(A, coords=(m_blk, k * 64), stage=k % 4, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), stage=k % 4, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 4, phase=k // 4)
            lm.mma(acc, smem_a[k % 4][m0:m0 + 64, :], smem_b[k % 4], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=k % 4)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
