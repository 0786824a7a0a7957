# FIXED form of cutlass_sm103_blockscaled_sf_load_before_pdl_wait.cake
# (NVIDIA/cutlass PR #3279): wait_on_dependent_grids() hoisted above the
# warp-specialized branches, so every warp - the SF load warp included -
# waits before its first global access.
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_sm103_blockscaled_wait_hoisted_fixed(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SFB: LM.tma2d,
                                                     D: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(A)
    lm.grid_dependency(SFA)
    pool     = lm.smem(167936)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_d   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_sfa = pool.view(offset=163840, shape=(4, 128), dtype=lm.e4m3, stages=4)     # SFA of a k-block (UE4M3)
    smem_sfb = pool.view(offset=165888, shape=(4, 128), dtype=lm.e4m3, stages=4)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)

    epi     = lm.role(warps=[4, 5, 6, 7])
    ab_load = lm.role(warps=[0])
    sf_load = lm.role(warps=[1])
    mma     = lm.role(warps=[2])

    pipe     = lm.pipeline(stages=4)
    ab_full  = lm.barrier(prod=[ab_load], cons=[mma], init_count=1, pipeline=pipe)
    ab_empty = lm.barrier(prod=[mma], cons=[ab_load], init_count=1, pipeline=pipe)
    sf_full  = lm.barrier(prod=[sf_load], cons=[mma], init_count=1, pipeline=pipe)
    sf_empty = lm.barrier(prod=[mma], cons=[sf_load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    # the fix: one wait_on_dependent_grids() above the warp specialization,
    # executed by every warp (and the inner waits dropped)
    with ab_load:
        lm.grid_dep_wait()
        for k in lm.range(0, k_tiles):
            lm.wait(ab_empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=ab_full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=ab_full)

    with sf_load:
        lm.grid_dep_wait()
        for k in lm.range(0, k_tiles):
            lm.wait(sf_empty, iter=k - 4)
            smem_sfa.tma_load(SFA, coords=(4 * k, m_blk), iter=k, barrier=sf_full)
            smem_sfb.tma_load(SFB, coords=(4 * k, n_blk), iter=k, barrier=sf_full)

    with mma:
        lm.grid_dep_wait()
        for k in lm.range(0, k_tiles):
            lm.wait(ab_full, iter=k)
            lm.wait(sf_full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=ab_empty, iter=k)
            lm.mma_commit(barrier=sf_empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.grid_dep_wait()
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_d[0], acc_r)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
