# Hopper FP8 GEMM with two-level accumulation (CUTLASS's FP8 mainloop without
# fast accumulation: NVIDIA/cutlass include/cutlass/gemm/collective/
# fp8_accumulation.hpp, GmmaFP8Accumulation with mma_promotion_interval = 4,
# used by sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp): the wgmma's FP8
# products accumulate in a temporary fragment for 4 k-blocks, which the
# consumer then adds into the FP32 main accumulator (promote_if_needed);
# the next k-block's wgmma starts the temporary over (ScaleOut::Zero:
# init=(k % 4 == 0)); after the mainloop, promote_residue_if_needed adds
# the last partial interval when the k-block count is no multiple of 4.
# The wgmma is waited at every k-block (warpgroup_wait<0> before the
# promotion reads the temporary) and the stage released after it.
# Two consumer warpgroups of 64 rows; 128x128x128 FP8 tiles.
# One tile per CTA. Persistent form: gemm/sm90_fp8_promotion_interval_persistent.cake.
# smem: A 4 x 16K + B 4 x 16K + C 2 x 16K = 160 KiB.
# expect: pass
@cake.schedule(target="sm_90a")
def cutlass_sm90_fp8_promotion_interval(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128),  dtype=lm.bf16, stages=2)
    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

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
            lm.wait(full, iter=k)
            lm.mma(tmp, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k % 4 == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
            if (k + 1) % 4 == 0:
                lm.binary(acc, acc, tmp, op="add")
        if k_tiles % 4 != 0:
            lm.binary(acc, acc, tmp, op="add")
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
