# FIXED form of fbtriton_autows_bwd_staging_slot_reuse_distance.cake
# (facebookexperimental/triton PR #1864): same-partition staging maps
# subtile s to slot s % K (getStaggeredAccumCnt's subtile-index slot), with
# K | S, so every slot is rewritten exactly K stores after its last store
# and `wait_group(K - 1)` has retired that store.  Everything else is
# unchanged.
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_autows_bwd_staging_slot_reuse_distance_fixed(lm, dK: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(32768)
    sdk  = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    d    = lm.regs(shape=(128, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3])

    bh = lm.block_idx(1) * 128

    with compute:
        for t in lm.range(0, n_tiles):
            for s in lm.range(0, 2):
                slot = s % 2                        # the bare subtile index: K | S
                lm.fill(d, 0.0)                     # this subtile of dK
                lm.tma_store_wait(pending=1)        # wait_group(K - 1)
                lm.copy(sdk[slot], d)
                lm.fence_proxy()
                sdk.tma_store(dK, coords=(128 * t, bh + 64 * s), stage=slot)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
