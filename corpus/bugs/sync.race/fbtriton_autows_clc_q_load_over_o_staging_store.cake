# BUG (sync.race): facebookexperimental/triton PR #3299 ("[AutoWS] Synchronize
# staging reuse across persistent while iterations", D116999555).  AutoWS
# lets the output staging buffer of the Blackwell flash-attention forward
# share shared memory with Q (the planner's staging reuse), and must then
# insert a cross-tile token: the load task acquires it at the top of a tile
# before it overwrites the aliased bytes with the next Q, and the
# epilogue-store task releases it at the bottom, after its TMA store of
# the previous tile's O has drained.  WSCodePartition step 7.5 looked only
# for a parent scf.for; under the cluster-launch-control scf.while no
# token was emitted, so "the next tile's Q load could overwrite aliased
# SMEM while the previous tile's output TMA store was still reading it --
# non-deterministic BF16 mismatches up to 22.9% of checked values".
# Modelled: the persistent tile loop as `for t in lm.range(0, n_tiles)`
# (the tiles this CTA's CLC queries hand it), one K tile per output tile
# (the KV loop folded to one MMA; K keeps its own two-slot ring), one
# tcgen05 MMA warp computing the tile into TMEM, four compute warps that
# read it back, convert it and write the bf16 O tile into the staging
# buffer (the view `so` over Q's bytes), and a one-warp epilogue-store
# task that TMA-stores it.  Q is released to the load task by the MMA's
# commit (q_empty), as the kernel's Q channel does; nothing else orders
# the next Q load after the store.
# Fix: fbtriton_autows_clc_q_load_over_o_staging_store_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def fbtriton_autows_clc_q_load_over_o_staging_store(lm, Q: LM.tma2d, Kt: LM.tma2d, O: LM.tma2d, n_tiles: LM.i32):
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

    bh = lm.block_idx(1) * 128

    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(q_empty, iter=t - 1)            # the Q channel's release by the MMA
            sq.tma_load(Q, coords=(128 * t, bh), iter=t, barrier=q_full)  # expect-error: sync.race
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
            so.tma_store(O, coords=(128 * t, bh), stage=0)  # expect-error: sync.race
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(o_empty, iter=t)
