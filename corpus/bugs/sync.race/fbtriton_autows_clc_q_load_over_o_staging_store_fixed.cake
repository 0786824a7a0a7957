# FIXED form of fbtriton_autows_clc_q_load_over_o_staging_store.cake
# (facebookexperimental/triton PR #3299): the cross-tile staging-reuse token
# is emitted under the persistent while loop too.  The load task acquires
# it at the top of every tile before the Q load that overwrites the staging
# bytes, and the epilogue-store task releases it at the bottom of every
# tile, after `tma_store_wait` has drained the O store (the token's phase
# is the tile counter, as the PR derives it from the while's `arg + 1`
# counter).  Everything else is unchanged.
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_autows_clc_q_load_over_o_staging_store_fixed(lm, Q: LM.tma2d, Kt: LM.tma2d, O: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(49152)
    sq   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    so   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    sk   = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r    = lm.regs(shape=(32, 64), dtype=lm.f32)
    o    = lm.regs(shape=(32, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3], group=1)
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])
    store   = lm.role(warps=[6])

    kv_pipe   = lm.pipeline(stages=2)
    kv_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv_pipe)
    kv_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv_pipe)
    q_full    = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_empty   = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=4)
    o_full    = lm.barrier(count=1, prod=[compute], cons=[store], init_count=4)
    o_empty   = lm.barrier(count=1, prod=[store], cons=[compute], init_count=1)
    staging   = lm.barrier(count=1, prod=[store], cons=[load], init_count=1)  # the cross-tile token

    bh = lm.block_idx(1) * 128

    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(staging, iter=t - 1)            # acquire the token: tile t - 1's O store drained
            lm.wait(q_empty, iter=t - 1)            # the Q channel's release by the MMA
            sq.tma_load(Q, coords=(128 * t, bh), iter=t, barrier=q_full)
            lm.wait(kv_empty, iter=t - 2)
            sk.tma_load(Kt, coords=(128 * t, bh), iter=t, barrier=kv_full)

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(q_full, iter=t)
            lm.wait(kv_full, iter=t)
            lm.wait(acc_empty, iter=t - 1)
            lm.mma(acc, sq[0], sk[t], init=True)
            lm.mma_commit(barrier=kv_empty, iter=t)
            lm.mma_commit(barrier=q_empty, iter=t)
            lm.mma_commit(barrier=acc_full, iter=t)

    with compute:
        q = 32 * lm.instance()
        for t in lm.range(0, n_tiles):
            lm.wait(acc_full, iter=t)
            lm.tmem_load(r, acc[q:q + 32, 0:64])
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=t)
            lm.copy(o, r)
            lm.wait(o_empty, iter=t - 1)
            lm.copy(so[0][q:q + 32, :], o)
            lm.fence_proxy()
            lm.arrive(o_full, iter=t)

    with store:
        for t in lm.range(0, n_tiles):
            lm.wait(o_full, iter=t)
            so.tma_store(O, coords=(128 * t, bh), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(o_empty, iter=t)
            lm.arrive(staging, iter=t)              # release the token
