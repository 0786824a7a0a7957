# BUG (data.uninitialized): ../../gemm/sm100_tcgen05_ws.cake with the MMA's
# init=(k == 0) left out, so every tcgen05.mma accumulates (enable-input-d
# set) and the first one adds its product to whatever the freshly
# allocated TMEM columns held: tcgen05.alloc does not clear tensor memory.
# Every barrier is right, so no synchronization rule sees it; before the
# TMEM case of this rule (session 29) `cake check` said *proved*.
# Fix: ../../gemm/sm100_tcgen05_ws.cake (init=(k == 0) on the MMA).
# expect: data.uninitialized
@cake.schedule(target="sm_100a")
def gemm_sm100_tmem_acc_init_dropped(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                     M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k])      # expect-error: data.uninitialized
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_c[0], acc_r)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
