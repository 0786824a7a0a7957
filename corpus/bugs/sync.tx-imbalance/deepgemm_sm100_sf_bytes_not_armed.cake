# BUG (sync.tx-imbalance), a mutant of gemm/sm100_deepgemm_sf_every_4_kblocks.cake
# (DeepGEMM's SM100 FP8 GEMM, scale factors every 4 k-blocks): the TMA warp
# issues the SFA/SFB boxes on the SF k-blocks but arms the full barrier
# with the A + B bytes only (the `num_arrival_bytes +=` of the SF branch
# left out): the phase completes when A and B land, and the MMA warp reads
# SF slots still being written.
# Fix: gemm/sm100_deepgemm_sf_every_4_kblocks.cake.
# expect: sync.tx-imbalance
# may-also: sync.race
@cake.schedule(target="sm_100a")
def deepgemm_sm100_sf_bytes_not_armed(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SFB: LM.tma2d,
                                   D: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(135168)
    smem_a   = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_sfa = pool.view(offset=131072, shape=(1, 128),   dtype=lm.i32,  stages=4)
    smem_sfb = pool.view(offset=133120, shape=(1, 128),   dtype=lm.i32,  stages=4)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    sfa_r    = lm.regs(shape=(1, 128), dtype=lm.i32)
    sfb_r    = lm.regs(shape=(1, 128), dtype=lm.i32)
    out      = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 128)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)
            if k % 4 == 0:
                smem_sfa.tma_load(SFA, coords=(k // 4, m_blk), iter=k, barrier=full)
                smem_sfb.tma_load(SFB, coords=(k // 4, n_blk), iter=k, barrier=full)
                lm.expect_tx(full, 32768, iter=k)
            else:
                lm.expect_tx(full, 32768, iter=k)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            if k % 4 == 0:
                lm.copy(sfa_r, smem_sfa[k])
                lm.copy(sfb_r, smem_sfb[k])
                lm.fence_proxy()
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.wait(acc_full, stage=0)
        lm.tmem_load(out, tmem_acc)
        lm.tmem_load_wait()
        lm.copy(D, out, coords=(m_blk, n_blk))
