# BUG (sync.race): facebookexperimental/triton PR #1864 ("[AutoWS][FA]
# early-TMA staging slot/reuse (T277224987) + fwd-persistent deadlock fix"),
# the backward half.  In the Blackwell flash-attention backward, dK / dV /
# dQ are written to a same-partition staging ring: the one task that
# writes a subtile into a staging slot also TMA-stores it, and before it
# rewrites a slot it drains with a fixed in-flight count,
# `cp.async.bulk.wait_group(K - 1)` (K staging slots).  That wait frees
# exactly the slot used K stores ago, so the S subtiles of a tile "must map
# to fixed K slots by bare subtile index (theIdx % K), correct only when
# K | S".  The old slot came from the accumulation count that couples the
# staging buffer to the enclosing loops, and "produced wrong dv/dk/dq once
# the staging was double-buffered (reuse distance != K)": a slot was
# rewritten while the TMA store that reads it was still in flight.
# Modelled: K = 2 slots, S = 2 subtiles per KV tile, the KV-tile loop as
# `for t in lm.range(0, n_tiles)`; the old slot as (t + s) % K, one
# coupling with the reuse distance the PR names (the PR text does not
# spell out the old formula: here the first subtile of tile t + 1 reuses
# the slot of the last subtile of tile t, a reuse distance of 1 store).
# The dK math that produces a subtile is left out (a fill).
# Fix: fbtriton_autows_bwd_staging_slot_reuse_distance_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def fbtriton_autows_bwd_staging_slot_reuse_distance(lm, dK: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(32768)
    sdk  = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    d    = lm.regs(shape=(128, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3])

    bh = lm.block_idx(1) * 128

    with compute:
        for t in lm.range(0, n_tiles):
            for s in lm.range(0, 2):
                slot = (t + s) % 2                  # the accumulation-count slot
                lm.fill(d, 0.0)                     # this subtile of dK
                lm.tma_store_wait(pending=1)        # wait_group(K - 1)
                lm.copy(sdk[slot], d)  # expect-error: sync.race
                lm.fence_proxy()
                sdk.tma_store(dK, coords=(128 * t, bh + 64 * s), stage=slot)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
