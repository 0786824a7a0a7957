# BUG (proxy.missing-fence), a # mutant of gemm/sm100_mixed_cpasync_peeled_k_residue.cake (CUTLASS's sm100
# GEMM with A by TMA and B by cp.async, its k-residue tile peeled after the
# cp.async warps' loop over the K // 64 full k-tiles, under `if K % 64 != 0`):
# the peeled tile commits its slot with no fence.proxy.async after its
# cp.async and st.shared writes (generic proxy), while the MMA warp's
# tcgen05.mma reads the slot through the async proxy; the full k-tiles
# keep their fence.
# Fix: gemm/sm100_mixed_cpasync_peeled_k_residue.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def cutlass_sm100_mixed_cpasync_peeled_residue_no_fence(lm, A: LM.tma2d, B: LM.gmem, D: LM.gmem, K: LM.i32):
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
    k_full  = K // 64
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load_tma:
        for k in lm.range(0, k_tiles):
            lm.wait(a_empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=a_full)
        for k in lm.range(k_tiles, k_tiles + 4):
            lm.wait(a_empty, iter=k - 4)

    with load_cpa:
        for k in lm.range(0, k_full):
            lm.wait(b_empty, iter=k - 4)
            smem_b.cp_async(B, coords=(n_blk, k * 64), iter=k)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.fence_proxy()
            lm.arrive(b_full, iter=k)
        if K % 64 != 0:
            # the k-residue tile: copy what exists, clear the columns past K
            lm.wait(b_empty, iter=k_full - 4)
            smem_b.cp_async(B, coords=(n_blk, k_full * 64), iter=k_full)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.fill(smem_b[k_full][:, 32:64], 0.0)
            lm.arrive(b_full, iter=k_full)
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
