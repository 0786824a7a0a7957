# DeepGEMM's SM100 FP8 GEMM with scale factors loaded every
# kNumSFStagesPerLoad = 4 k-blocks (deepseek-ai/DeepGEMM
# deep_gemm/include/deep_gemm/impls/sm100_fp8_gemm_1d1d.cuh, the TMA warp
# and the MMA warp; gran_k = 128 with BLOCK_K = 128 packs four k-blocks'
# UE8M0 scales into one word):
#  * TMA warp: per k-block, wait empty, TMA A and B into the stage; only
#    when k_block_idx % 4 == 0 also TMA SFA and SFB into the same stage's
#    SF slots on the same full barrier, and arrive_and_expect_tx with the
#    bytes of what it issued (A + B, plus the SF boxes on those k-blocks):
#    a hand-armed expect_tx whose byte count follows the guard;
#  * MMA warp: wait full; on the same k-blocks the UTCCP (tcgen05.cp) of the
#    stage's SF into TMEM, then the UMMA, whose tcgen05.commit releases the
#    stage (empty).
# Modelled: the IR has no tcgen05.cp, so the UTCCP is an lm.copy of the SF
# slots into registers by the MMA warp (a generic read, hence the
# lm.fence_proxy() before the commit that hands the stage back to TMA; the
# real UTCCP reads through the tensor-core proxy and needs none). The SF
# boxes are (1, 128) i32 words, BLOCK_M = BLOCK_N = 128. 1-CTA MMA, no
# multicast.
# One tile per CTA; the epilogue warpgroup waits the accumulator once.
# Persistent form: gemm/sm100_deepgemm_sf_every_4_kblocks_persistent.cake.
# Broken form: bugs/sync.tx-imbalance/deepgemm_sm100_sf_bytes_not_armed.cake.
# smem: A 4 x 16K + B 4 x 16K + SFA 4 x 512 + SFB 4 x 512 = 132 KiB.
# expect: pass
@cake.schedule(target="sm_100a")
def deepgemm_sm100_sf_every_4_kblocks(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SFB: LM.tma2d,
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
                lm.expect_tx(full, 33792, iter=k)
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
