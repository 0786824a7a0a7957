# BUG (sync.race): facebookexperimental/triton PR #1864 ("[AutoWS][FA]
# early-TMA staging slot/reuse (T277224987) + fwd-persistent deadlock fix"),
# the forward half.  The Blackwell flash-attention forward stores O through
# a cross-partition staging ring: the compute task writes each O subtile
# into a staging slot and arrives on a full barrier, the epilogue-store task
# waits it, TMA-stores the slot, drains the store and arrives on the empty
# barrier.  The slot AND the phase of both barriers derive from one count,
# which "must rotate by the continuous accumCnt" across the persistent
# tiles.  Applying the same-partition rule (slot = bare subtile index,
# `theIdx % K`) to this ring too "pinned that phase and deadlocked fwd
# ws_persistent after the first tile": with the count restarting at every
# tile, tile 1 waits the phases tile 0 already completed.  On the hardware
# the producer's parity wait then blocks (a hang); read as phase numbers,
# tile 1's waits are satisfied by tile 0's phases, so the compute task
# rewrites a staging slot while tile 0's TMA store may still read it and
# the store task stores a slot before tile 1's O is in it.
# Modelled: K = 2 staging slots, S = 2 O subtiles per tile (K | S, the case
# the subtile-index rule was meant for), the persistent tile loop as
# `for t in lm.range(0, n_tiles)`, four compute warps each writing its 32
# rows of a subtile (the softmax/correction math that produces them left
# out), one epilogue-store warp.
# Fix: fbtriton_autows_fwd_staging_phase_pinned_per_tile_fixed.cake.
# expect: sync.race
# may-also: sync.arrival-overflow data.stale-read
@cake.schedule(target="sm_100a")
def fbtriton_autows_fwd_staging_phase_pinned_per_tile(lm, O: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(32768)
    so   = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    o    = lm.regs(shape=(32, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3], group=1)
    store   = lm.role(warps=[4])

    stg     = lm.pipeline(stages=2)
    o_full  = lm.barrier(prod=[compute], cons=[store], init_count=4, pipeline=stg)
    o_empty = lm.barrier(prod=[store], cons=[compute], init_count=1, pipeline=stg)

    bh = lm.block_idx(1) * 128

    with compute:
        q = 32 * lm.instance()
        for t in lm.range(0, n_tiles):
            for s in lm.range(0, 2):
                lm.fill(o, 0.0)                     # this subtile's O rows
                lm.wait(o_empty, iter=s - 2)        # count = subtile index: restarts every tile
                lm.copy(so[s][q:q + 32, :], o)  # expect-error: sync.race
                lm.fence_proxy()
                lm.arrive(o_full, iter=s)

    with store:
        for t in lm.range(0, n_tiles):
            for s in lm.range(0, 2):
                lm.wait(o_full, iter=s)
                so.tma_store(O, coords=(128 * t, bh + 64 * s), stage=s)  # expect-error: sync.race
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)
                lm.arrive(o_empty, iter=s)
