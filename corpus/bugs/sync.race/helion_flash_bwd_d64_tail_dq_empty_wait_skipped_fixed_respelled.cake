# FIXED form of helion_flash_bwd_d64_tail_dq_empty_wait_skipped.cake
# (pytorch/helion PR #3621): in the persistent kernel the tail dQ MMA also
# waits `dq_empty` when the tile is not the CTA's first
# (`tail_cond = "(fbwd_steps > 1) | (fbwd_tile_it > 0)"`), so every dQ MMA
# but the kernel's first waits for the reduce warps' release of the previous
# dQ.
# expect: pass
# RESPELLED: the MMA warp's dq_empty waits name the slot only (`stage=0`,
# no phase): the phase is the number of this instance's earlier waits on
# the slot, which is what the kernel's fbwd_dqe_phase bit flipped after
# each wait stands for, so a skipped wait also leaves the phase behind;
# the reduce warps arrive by slot too.
@cake.schedule(target="sm_100a")
def helion_flash_bwd_d64_tail_dq_empty_wait_fixed_respelled(lm, K: LM.tma2d, DQ: LM.gmem, n_tiles: LM.i32, steps: LM.i32):
    lm.assume(steps >= 1)
    pool    = lm.smem(32768)
    smem_kt = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, swizzle="128B")    # K^T of the KV tile
    smem_ds = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")   # dS of the step
    tmem_dq = lm.tmem(cols=384, width=64, shape=(128, 64), dtype=lm.f32)                 # D=64: dQ's own columns
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dq_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    reduce  = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    mma     = lm.role(warps=[12])
    load    = lm.role(warps=[13])

    k_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_empty  = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dq_full  = lm.barrier(count=1, prod=[mma], cons=[reduce], init_count=1)
    dq_empty = lm.barrier(count=1, prod=[reduce], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=t - 1)
            smem_kt.tma_load(K, coords=(0, 64 * (lm.block_idx(0) + t * lm.grid_dim(0))), iter=t, barrier=k_full)
        lm.wait(k_empty, iter=n_tiles - 1)                # producer tail: the last K release

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(k_full, iter=t)
            for j in lm.range(0, steps - 1):
                e = t * steps + j
                lm.wait(ds_full, iter=e)
                if (j > 0) or (t > 0):                     # (i > 0) | (tile_it > 0)
                    lm.wait(dq_empty, stage=0)              # fbwd_dqe_phase, flipped after each wait
                lm.mma(tmem_dq, smem_ds[e], smem_kt[t], init=True)
                lm.mma_commit(barrier=ds_empty, iter=e)
                lm.mma_commit(barrier=dq_full, iter=e)
            # tail: dQ of the tile's last step
            e = t * steps + steps - 1
            lm.wait(ds_full, iter=e)
            if (steps > 1) or (t > 0):                   # the fix: (fbwd_steps > 1) | (fbwd_tile_it > 0)
                lm.wait(dq_empty, stage=0)
            lm.mma(tmem_dq, smem_ds[e], smem_kt[t], init=True)
            lm.mma_commit(barrier=ds_empty, iter=e)
            lm.mma_commit(barrier=dq_full, iter=e)
            lm.mma_commit(barrier=k_empty, iter=t)

    with compute:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.fill(ds_r, 0.5)                       # dS = P * (dP - Delta)
                lm.wait(ds_empty, iter=e - 1)
                lm.copy(smem_ds[e], ds_r)
                lm.fence_proxy()
                lm.arrive(ds_full, iter=e)

    with reduce:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.wait(dq_full, iter=e)
                lm.tmem_load(dq_r, tmem_dq)                               
                lm.tmem_load_wait()
                lm.arrive(dq_empty, stage=0)
                lm.copy(DQ, dq_r, coords=(128 * j, 0))
