# FINDING (proxy.missing-fence), read from NVIDIA/cutlass at 30ac8288:
# include/cutlass/gemm/collective/sm100_mma_warpspecialized_mixed_input.hpp,
# transform(): the transformation warps copy the int8 A stage from shared
# memory to registers (AutoVectorizingCopy, generic proxy), bar.sync their
# TransformBarrier and call load2transform_pipeline.consumer_release, which
# in PipelineTmaTransformAsync (include/cutlass/pipeline/sm100_pipeline.hpp)
# is a plain mbarrier arrive.  No fence.proxy.async sits between the generic
# reads and the release, so the load-A warp's next TMA load (async proxy)
# into the stage is ordered after the reads only through the mbarrier hand-
# off - the write-after-read across proxies that docs/rules/
# proxy.missing-fence.md reports and that merged upstream fixes added a fence
# for (triton-lang/triton PR #7262, NVIDIA/cudnn-frontend PR #993).  Not
# reported upstream; no failure observed (the project's reading of the PTX
# proxy rules, not a reproduced corruption).
# Schedule: gemm/sm100_mixed_input_transform_warps.cake without its fence.
# Fixed: gemm/sm100_mixed_input_transform_warps.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def cutlass_sm100_mixed_input_transform_no_fence(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(147456)
    smem_a8  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.i8,   stages=3)
    smem_ax  = pool.view(offset=24576,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b   = pool.view(offset=57344,  shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_d   = pool.view(offset=106496, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    a_r      = lm.regs(shape=(128, 64), dtype=lm.bf16)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)

    mma    = lm.role(warps=[0])
    load_a = lm.role(warps=[1])
    load_b = lm.role(warps=[2])
    xform  = lm.role(warps=[4, 5, 6, 7])
    epi    = lm.role(warps=[8, 9, 10, 11])

    ld      = lm.pipeline(stages=3)
    a_full  = lm.barrier(prod=[load_a], cons=[xform], init_count=1, pipeline=ld)
    a_empty = lm.barrier(prod=[xform], cons=[load_a], init_count=1, pipeline=ld)
    b_full  = lm.barrier(prod=[load_b], cons=[mma], init_count=1, pipeline=ld)
    b_empty = lm.barrier(prod=[mma], cons=[load_b], init_count=1, pipeline=ld)
    xp      = lm.pipeline(stages=2)
    x_full  = lm.barrier(prod=[xform], cons=[mma], init_count=1, pipeline=xp)
    x_empty = lm.barrier(prod=[mma], cons=[xform], init_count=1, pipeline=xp)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m0 = lm.block_idx(0) * 128
    n0 = lm.block_idx(1) * 128

    with load_a:
        for k in lm.range(0, k_tiles):
            lm.wait(a_empty, iter=k - 3)
            smem_a8.tma_load(A, coords=(m0, k * 64), iter=k, barrier=a_full)  # expect-error: proxy.missing-fence

    with load_b:
        for k in lm.range(0, k_tiles):
            lm.wait(b_empty, iter=k - 3)
            smem_b.tma_load(B, coords=(n0, k * 64), iter=k, barrier=b_full)

    with xform:
        for k in lm.range(0, k_tiles):
            lm.wait(a_full, iter=k)
            lm.wait(x_empty, iter=k - 2)
            lm.copy(a_r, smem_a8[k])  # expect-error: proxy.missing-fence
            lm.arrive(a_empty, iter=k)
            lm.copy(smem_ax[k], a_r)
            lm.fence_proxy()
            lm.arrive(x_full, iter=k)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(x_full, iter=k)
            lm.wait(b_full, iter=k)
            lm.mma(tmem_acc, smem_ax[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=x_empty, iter=k)
            lm.mma_commit(barrier=b_empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_d[0], acc_r)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m0, n0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
