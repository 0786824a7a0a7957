# BUG (data.stale-read), a mutant of
# gemm/sm100_deepgemm_sf_every_4_kblocks_persistent.cake (DeepGEMM's SM100
# FP8 GEMM, scale factors every 4 k-blocks): the MMA warp copies the scales
# on k_block_idx % 4 == 1 instead of == 0 - the stage it reads got no SF box
# in this lap (the TMA warp loads SF on the k-blocks % 4 == 0), so it reads
# bytes nothing wrote, or an older lap's scales.
# Fix: gemm/sm100_deepgemm_sf_every_4_kblocks_persistent.cake.
# lower: unsupported (a sliced mma accumulator at a loop variable, tmem_acc[:, 128 * a:128 * a + 128])
# expect: data.stale-read
@cake.schedule(target="sm_100a")
def deepgemm_sm100_sf_read_off_by_one_kblock(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SFB: LM.tma2d,
                                              D: LM.gmem, K: LM.i32, n_tiles: LM.i32):
    lm.assume(K > 0)
    lm.assume(n_tiles >= 0)
    pool     = lm.smem(135168)
    smem_a   = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_sfa = pool.view(offset=131072, shape=(1, 128),   dtype=lm.i32,  stages=4)
    smem_sfb = pool.view(offset=133120, shape=(1, 128),   dtype=lm.i32,  stages=4)
    tmem_acc = lm.tmem(cols=0, width=256, shape=(128, 256), dtype=lm.f32)
    sfa_r    = lm.regs(shape=(1, 128), dtype=lm.i32)
    sfb_r    = lm.regs(shape=(1, 128), dtype=lm.i32)
    out      = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])

    pipe      = lm.pipeline(stages=4)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    accp      = lm.pipeline(stages=2)
    acc_full  = lm.barrier(prod=[mma], cons=[epi], init_count=1, pipeline=accp)
    acc_empty = lm.barrier(prod=[epi], cons=[mma], init_count=1, pipeline=accp)

    k_tiles = lm.cdiv(K, 128)

    with load:
        for t in lm.range(0, n_tiles):
            m_blk = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            n_blk = lm.block_idx(1) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 128), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 128), iter=it, barrier=full)
                if k % 4 == 0:
                    smem_sfa.tma_load(SFA, coords=(k // 4, m_blk), iter=it, barrier=full)
                    smem_sfb.tma_load(SFB, coords=(k // 4, n_blk), iter=it, barrier=full)
                    lm.expect_tx(full, 33792, iter=it)
                else:
                    lm.expect_tx(full, 32768, iter=it)

    with mma:
        for t in lm.range(0, n_tiles):
            a = t % 2
            lm.wait(acc_empty, iter=t - 2)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                if k % 4 == 1:
                    lm.copy(sfa_r, smem_sfa[it])
                    lm.copy(sfb_r, smem_sfb[it])
                    lm.fence_proxy()
                lm.mma(tmem_acc[:, 128 * a:128 * a + 128], smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        for t in lm.range(0, n_tiles):
            a = t % 2
            m_blk = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            n_blk = lm.block_idx(1) * 128
            lm.wait(acc_full, iter=t)
            lm.tmem_load(out, tmem_acc[:, 128 * a:128 * a + 128])
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=t)
            lm.copy(D, out, coords=(m_blk, n_blk))
