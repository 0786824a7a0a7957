# CUTLASS's Blackwell GEMM with A by TMA and B by cp.async (NVIDIA/cutlass
# include/cutlass/gemm/collective/sm100_mma_mixed_tma_cpasync_warpspecialized.hpp,
# kernel sm100_gemm_mixed_tma_cpasync_warpspecialized.hpp: WarpCategory
# MMA = 0, Sched = 1, MainloopLoadTMA = 2, EpilogueLoad = 3, Epilogue = 4..7,
# MainloopLoadCpAsync = 8..11).  Two rings with their own barriers:
# MainloopPipelineTMA (PipelineTmaUmmaAsync: TMA complete_tx on full,
# tcgen05.commit on empty) for A, MainloopPipelineCpAsync
# (PipelineUmmaConsumerAsync: every producer thread's cp.async completion
# arrives on full - cpasync_barrier_arrive - and tcgen05.commit releases)
# for B.  The MMA warp waits both slots of a k-tile and releases both.
# One 128x128 tile per CTA (1-SM MMA, no scheduler), 4 stages, BK = 64.
#  * cp.async warps: producer_acquire, cp.async of the k-tile's B, commit
#    with cpasync_barrier_arrive (written as cp_async_wait(0), fence_proxy
#    and an arrive).  When K % 64 != 0 CUTLASS loads the last k-tile after
#    the loop "with predication on k", clearing the columns past K with
#    st.shared; here every k-tile is one cp.async (the zero-fill form of
#    the predicated copy).  The peeled form, correct too, is proved since
#    session 48: gemm/sm100_mixed_cpasync_peeled_k_residue.cake (docs/z3.md
#    "A peeled last iteration after the loop, under a remainder guard").
#  * The fence: cp.async and st.shared write through the generic proxy and
#    tcgen05.mma reads through the async proxy; PTX wants a
#    fence.proxy.async between them.  CUTLASS's cp.async collective issues
#    none (cpasync_barrier_arrive, then the MMA warp's consumer_wait); the
#    file carries it, and the form without it is
#    bugs/proxy.missing-fence/cutlass_sm100_mixed_cpasync_b_no_fence.cake
#    (a finding of the proxy rule, not a reproduced failure).
#  * load_tail_tma / load_tail_cpasync: each producer waits every slot's
#    last release.
# Mutant: bugs/sync.race/sm100_mixed_cpasync_arrive_before_copies_land.cake.
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_sm100_mixed_tma_cpasync(lm, A: LM.tma2d, B: LM.gmem, D: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(131072)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    mma      = lm.role(warps=[0])
    load_tma = lm.role(warps=[2])
    epi      = lm.role(warps=[4, 5, 6, 7])
    load_cpa = lm.role(warps=[8, 9, 10, 11])

    pipe     = lm.pipeline(stages=4)
    a_full   = lm.barrier(prod=[load_tma], cons=[mma], init_count=1, pipeline=pipe)
    a_empty  = lm.barrier(prod=[mma], cons=[load_tma], init_count=1, pipeline=pipe)
    b_full   = lm.barrier(prod=[load_cpa], cons=[mma], init_count=1, pipeline=pipe)
    b_empty  = lm.barrier(prod=[mma], cons=[load_cpa], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load_tma:
        for k in lm.range(0, k_tiles):
            lm.wait(a_empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=a_full)
        for k in lm.range(k_tiles, k_tiles + 4):
            lm.wait(a_empty, iter=k - 4)

    with load_cpa:
        for k in lm.range(0, k_tiles):
            lm.wait(b_empty, iter=k - 4)
            smem_b.cp_async(B, coords=(n_blk, k * 64), iter=k)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.fence_proxy()
            lm.arrive(b_full, iter=k)
        for k in lm.range(k_tiles, k_tiles + 4):
            lm.wait(b_empty, iter=k - 4)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(a_full, iter=k)
            lm.wait(b_full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=a_empty, iter=k)
            lm.mma_commit(barrier=b_empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        for h in lm.range(0, 2):
            lm.tmem_load(acc_r, tmem_acc[:, 64 * h:64 * h + 64])
            lm.tmem_load_wait()
            lm.copy(D, acc_r, coords=(m_blk, n_blk + 64 * h))
