# FIXED form of fa4_bwd_sm100_ds_tmem_store_over_peer_dp.cake
# (Dao-AILab/flash-attention PR #2033, item 2): a compute-wide named
# barrier (compute_sync_barrier.arrive_and_wait()) after the tcgen05.wait::ld
# of dP, so neither warpgroup stores its packed dS over dP columns before
# the other warpgroup's dP load has completed.
# expect: pass
@cake.schedule(target="sm_100a")
def fa4_bwd_sm100_ds_tmem_store_after_compute_sync(lm, dO: LM.tma2d, V: LM.tma2d, n_m: LM.i32):
    pool    = lm.smem(65536)
    smem_do = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    dp      = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    dp_r    = lm.regs(shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 32), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])

    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    dp_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dp_empty = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=2)

    compute_sync = lm.named_barrier(roles=[compute])

    n0 = lm.block_idx(0) * 128

    with load:
        for m in lm.range(0, n_m):
            lm.wait(empty, iter=m - 2)
            smem_do.tma_load(dO, coords=(m * 128, 0), iter=m, barrier=full)
            smem_v.tma_load(V, coords=(n0, 0), iter=m, barrier=full)

    with mma:
        for m in lm.range(0, n_m):
            lm.wait(full, iter=m)
            lm.wait(dp_empty, iter=m - 1)
            lm.mma(dp, smem_do[m], smem_v[m], init=True)
            lm.mma_commit(barrier=empty, iter=m)
            lm.mma_commit(barrier=dp_full, iter=m)

    with compute:
        g = lm.instance()
        for m in lm.range(0, n_m):
            lm.wait(dp_full, iter=m)
            lm.tmem_load(dp_r, dp[:, g * 64:g * 64 + 64])
            lm.tmem_load_wait()
            lm.sync(compute_sync)
            lm.binary(dp_r, dp_r, 0.5, op="mul")
            lm.copy(ds_r, dp_r[:, 0:32])
            lm.tmem_store(dp[:, g * 32:g * 32 + 32], ds_r)
            lm.tmem_store_wait()
            lm.arrive(dp_empty, iter=m)
