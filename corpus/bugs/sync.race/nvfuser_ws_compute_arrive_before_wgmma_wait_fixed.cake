# FIXED: nvfuser_ws_compute_arrive_before_wgmma_wait.cake as NVIDIA/Fuser
# PR #3863 fixes it (issue #3561): WarAsyncWaitInserter::handleComputeWarp
# inserts wgmma.commit_group and wgmma.wait_group before the WAR
# mbarrier::arrive of each stage (with every stage but the one being read
# prefetched, the wait keeps 0 groups pending), so the stage is released
# only after the wgmmas that read it have retired.
# expect: pass
@cake.schedule(target="sm_90a")
def nvfuser_ws_compute_wait_then_arrive(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    load    = lm.role(warps=[8])

    full = lm.barrier(count=4, prod=[load], cons=[compute], init_count=1)
    war  = lm.barrier(count=4, prod=[compute], cons=[load], init_count=256)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            if k >= 4:
                lm.wait(war, stage=k % 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), stage=k % 4, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), stage=k % 4, barrier=full)

    with compute:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=k % 4)
            lm.mma(acc, smem_a[k % 4][m0:m0 + 64, :], smem_b[k % 4], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(war, stage=k % 4, count=128)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
