# respells: corpus/gemm/sm100_tcgen05_ws.cake
# change: stage= everywhere on the ring (implicit phases for the MMA warp's waits and commits,
# an explicit phase in the load warp's guarded wait), operands smem_a[k % 4], the MMA warp's
# first k-block written out (init=True) and its loop from 1, the one-slot accumulator barrier
# with iter=0, the roles declared load first.
# expect: pass
@cake.schedule(target="sm_100a")
def gemm_sm100_tcgen05_ws(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                          M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[5])
    mma  = lm.role(warps=[4])
    epi  = lm.role(warps=[0, 1, 2, 3])

    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    empty    = lm.barrier(count=4, prod=[mma], cons=[load], init_count=1)
    full     = lm.barrier(count=4, prod=[load], cons=[mma], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            if k > 3:
                lm.wait(empty, stage=k % 4, phase=(k - 4) // 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), stage=k % 4, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), stage=k % 4, barrier=full)

    with mma:
        lm.wait(full, stage=0)
        lm.mma(tmem_acc, smem_a[0], smem_b[0], init=True)
        lm.mma_commit(barrier=empty, stage=0)
        for k in lm.range(1, k_tiles):
            lm.wait(full, stage=k % 4)
            lm.mma(tmem_acc, smem_a[k % 4], smem_b[k % 4], init=False)
            lm.mma_commit(barrier=empty, stage=k % 4)
        lm.mma_commit(barrier=acc_full, iter=0)

    with epi:
        lm.wait(acc_full, iter=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_c[0], acc_r)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
