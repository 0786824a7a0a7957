# BUG: the epilogue reads the registers of its asynchronous TMEM load
# before tcgen05.wait::ld, so it may copy values the load has not written.
# (Fixed: corpus/gemm/sm100_tmem_quarters.cake.)
# Blackwell GEMM whose epilogue is four single-warp instances, each owning
# one TMEM lane quarter (per-warp ownership of a partial TMEM region):
#  * tcgen05.ld 32x32b: warp w reaches lanes 32*(w%4) .. +31 only, so
#    instance i (warp i) loads the slice tmem_acc[32*i : 32*i + 32, :];
#  * lm.tmem_load is asynchronous: its registers are written until
#    lm.tmem_load_wait() (tcgen05.wait::ld), and only then are they read;
#  * each warp stores its own 32 rows through its own staging slot.
# MMA warp 4, TMA warp 5. TMEM: columns [0, 128).
# expect: sync.race
@cake.schedule(target="sm_100a")
def gemm_sm100_tmem_quarters(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                             M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(32, 128), dtype=lm.bf16, stages=4)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_q    = lm.regs(shape=(32, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
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
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        q = 32 * lm.instance()
        lm.wait(acc_full, stage=0)
        lm.tmem_load(acc_q, tmem_acc[q:q + 32, :])
        lm.copy(smem_c[lm.instance()], acc_q)  # expect-error: sync.race
        lm.tmem_load_wait()
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + q, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
