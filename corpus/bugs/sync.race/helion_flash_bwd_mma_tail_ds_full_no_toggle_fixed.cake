# FIXED form of helion_flash_bwd_mma_tail_ds_full_no_toggle.cake
# (pytorch/helion PR #3621): the MMA warp toggles fbwd_dsf_phase after the
# tail ds_full wait as well, so its phase counts every step of every tile.
# expect: pass
@cake.schedule(target="sm_100a")
def helion_flash_bwd_mma_tail_ds_full_toggled_fixed(lm, Q: LM.tma2d, DK: LM.gmem, n_tiles: LM.i32, steps: LM.i32):
    lm.assume(steps >= 1)
    pool    = lm.smem(32768)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")    # Q^T of the step
    smem_ds = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")             # dS^T of the step
    tmem_dk = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dk_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    q_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dk_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dk_empty = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                it = t * steps + j
                lm.wait(q_empty, iter=it - 2)
                smem_q.tma_load(Q, coords=(0, 64 * j), iter=it, barrier=q_full)

    with mma:
        for t in lm.range(0, n_tiles):
            base = t * steps                              # the fix: the tail wait toggles too
            lm.wait(dk_empty, iter=t - 1)
            for j in lm.range(0, steps - 1):
                it = t * steps + j
                lm.wait(q_full, iter=it)
                lm.wait(ds_full, stage=0, phase=base + j)
                lm.mma(tmem_dk, smem_ds[it], smem_q[it], init=(j == 0))
                lm.mma_commit(barrier=q_empty, iter=it)
                lm.mma_commit(barrier=ds_empty, iter=it)
            # the peeled tail step
            it = t * steps + steps - 1
            lm.wait(q_full, iter=it)
            lm.wait(ds_full, stage=0, phase=base + steps - 1)
            lm.mma(tmem_dk, smem_ds[it], smem_q[it], init=(steps == 1))
            lm.mma_commit(barrier=q_empty, iter=it)
            lm.mma_commit(barrier=ds_empty, iter=it)
            lm.mma_commit(barrier=dk_full, iter=t)

    with compute:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                it = t * steps + j
                lm.fill(ds_r, 0.5)                        # dS = P * (dP - Delta)
                lm.wait(ds_empty, iter=it - 1)
                lm.copy(smem_ds[it], ds_r)
                lm.fence_proxy()
                lm.arrive(ds_full, iter=it)
            lm.wait(dk_full, iter=t)
            lm.tmem_load(dk_r, tmem_dk)
            lm.tmem_load_wait()
            lm.arrive(dk_empty, iter=t)
            lm.copy(DK, dk_r, coords=(128 * (lm.block_idx(0) + t * lm.grid_dim(0)), 0))
