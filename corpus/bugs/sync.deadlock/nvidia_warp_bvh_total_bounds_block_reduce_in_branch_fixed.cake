# FIXED: nvidia_warp_bvh_total_bounds_block_reduce_in_branch.cake as
# NVIDIA/warp PR #1863 fixes issue #1601: "Hoist the loads and both
# Reduce() calls + __syncthreads() out of the branch. Out-of-range lanes
# carry neutral sentinels (lower = vec3(FLT_MAX), upper = vec3(-FLT_MAX))
# which Reduce() already ignores through the existing numValid count; only
# the final atomic_max/atomic_min writes stay under threadIdx.x == 0".
# expect: pass
@cake.schedule(target="sm_80")
def warp_compute_total_bounds_fixed(lm, ItemLowers: LM.gmem, ItemUppers: LM.gmem, TotalLower: LM.gmem,
                              TotalUpper: LM.gmem, num_items: LM.i32):
    lm.assume(num_items >= 1)
    lm.assume(num_items <= 65536)
    pool = lm.smem(96)
    aggs = pool.view(offset=0, shape=(8, 3), dtype=lm.f32)      # temp_storage.warp_aggregates[8] (vec3)
    lo   = lm.regs(shape=(32, 3), dtype=lm.f32)                   # lower of the warp's 32 items
    up   = lm.regs(shape=(32, 3), dtype=lm.f32)
    wagg = lm.regs(shape=(1, 3), dtype=lm.f32)
    all8 = lm.regs(shape=(8, 3), dtype=lm.f32)
    bup  = lm.regs(shape=(1, 3), dtype=lm.f32)                    # block_upper (thread 0)
    blo  = lm.regs(shape=(1, 3), dtype=lm.f32)                    # block_lower (thread 0)
    tot  = lm.regs(shape=(1, 3), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w  = lm.instance()
        t0 = 256 * lm.block_idx(0) + 32 * w                 # tid of the warp's lane 0
        lm.fill(lo, 3.0e38)                                 # out-of-range lanes: vec3(FLT_MAX)
        lm.fill(up, -3.0e38)                                # and vec3(-FLT_MAX)
        if t0 < num_items:                                  # the fix: only the loads are guarded
            lm.copy(lo, ItemLowers, coords=(t0, 0))
            lm.copy(up, ItemUppers, coords=(t0, 0))
        # BlockReduce(temp_storage).Reduce(upper, Vec3Max, numValid)
        lm.reduce(wagg, up, op="max", axis=0)           # WarpReduce
        lm.copy(aggs[0][w:w + 1, 0:3], wagg)            # lane 0: warp_aggregates[warp_id]
        lm.sync(block)
        if w == 0:
            lm.copy(all8, aggs[0])                      # thread 0: ApplyWarpAggregates
            lm.reduce(bup, all8, op="max", axis=0)
        lm.sync(block)                                  # __syncthreads()
        # BlockReduce(temp_storage).Reduce(lower, Vec3Min, numValid)
        lm.reduce(wagg, lo, op="min", axis=0)
        lm.copy(aggs[0][w:w + 1, 0:3], wagg)
        lm.sync(block)
        if w == 0:
            lm.copy(all8, aggs[0])
            lm.reduce(blo, all8, op="min", axis=0)
            lm.copy(tot, TotalUpper, coords=(0, 0))     # atomic_max(total_upper, block_upper)
            lm.binary(tot, tot, bup, op="max")
            lm.copy(TotalUpper, tot, coords=(0, 0))
            lm.copy(tot, TotalLower, coords=(0, 0))     # atomic_min(total_lower, block_lower)
            lm.binary(tot, tot, blo, op="min")
            lm.copy(TotalLower, tot, coords=(0, 0))
