# mutant: stage-minus-1
# original: corpus/gemm/sm90_fp8_block_scaled.cake
# line: 54: smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
# change: stage: `lm.instance()` -> `(lm.instance() + 1) % 2`
# label: bad (data.stale-read, sync.race) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 144, 272, 400, 528, 1040} (6 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 708 states; first violation: data.stale-read: consumers[0] reads smem_c[1] bytes [147456, 163840) (for index 1) but nothing was written there yet at `smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=(lm.instance() + 1) % 2)` (line 54) (M=0, N=0, K=1)
# expect-any: data.stale-read sync.race
# Hopper FP8 GEMM with fine-grained block scaling (DeepGEMM / DeepSeek-V3
# recipe): A and B are e4m3 with one f32 scale per (row, 128-wide K block)
# for A and per (128x128 block) for B.  The wgmma of each K block
# accumulates into a temporary f32 fragment (init=True), and after
# mma_wait the consumer "promotes" it into the main accumulator scaled by
# sa * sb - the FP8 accumulation-precision fix.  K block = 128 (e4m3 rows
# of 128 bytes, 128B swizzle).  Two consumer warpgroups, 4-stage ring.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_fp8_block_scaled(lm, A: LM.tma2d, B: LM.tma2d, SA: LM.gmem, SB: LM.gmem, C: LM.tma2d,
                          M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128),  dtype=lm.bf16, stages=2)
    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    sa     = lm.regs(shape=(64, 1), dtype=lm.f32)
    sb     = lm.regs(shape=(1, 1), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 128)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.copy(sa, SA, coords=(m_blk + m0, k))
            lm.copy(sb, SB, coords=(lm.block_idx(1), k))
            lm.binary(sa, sa, sb, op="mul")
            lm.wait(full, iter=k)
            lm.mma(tmp, smem_a[k][m0:m0 + 64, :], smem_b[k], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
            lm.binary(tmp, tmp, sa, op="mul")
            lm.binary(acc, acc, tmp, op="add")
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=(lm.instance() + 1) % 2)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
