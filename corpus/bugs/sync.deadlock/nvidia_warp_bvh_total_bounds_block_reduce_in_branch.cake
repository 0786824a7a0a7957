# BUG (sync.deadlock): NVIDIA/warp issue #1601 ("compute_total_bounds: CUB
# BlockReduce and __syncthreads() inside divergent if (tid < num_items)
# cause partial-block UB", 2026-06-29), fix in PR #1863 ("bvh: fix
# block-collective divergence in compute_total_bounds (GH-1601)").
# warp/native/bvh.cu, the LBVH build's scene bounds (256 threads a block,
# blocks = ceil(num_items / 256)):
#     if (tid < num_items) {
#         vec3 lower = item_lowers[tid];
#         vec3 upper = item_uppers[tid];
#         vec3 block_upper = BlockReduce(temp_storage).Reduce(upper, Vec3Max, numValid);
#         __syncthreads();
#         vec3 block_lower = BlockReduce(temp_storage).Reduce(lower, Vec3Min, numValid);
#         if (threadIdx.x == 0) { atomic_max(total_upper, block_upper); atomic_min(total_lower, block_lower); }
#     }
# "For the last block, when num_items is not an exact multiple of
# blockDim.x, the threads with tid >= num_items take the else path and
# never reach the collective/barrier ... it can hang or produce a wrong
# reduction" (e.g. wp.Bvh / wp.Mesh with 300 primitives).  CUB's
# BlockReduce (BLOCK_REDUCE_WARP_REDUCTIONS): each warp's lane 0 stores its
# warp aggregate into temp_storage.warp_aggregates[warp], __syncthreads(),
# thread 0 combines the aggregates (the result is valid in thread 0 only).
# Written in CAKE IR: 256 threads = eight one-warp instances,
# __syncthreads() (CUB's CTA_SYNC included) a named barrier; a warp takes
# the branch when its first thread does (the lanes past num_items inside a
# warp that goes on are below the IR's granularity); the vec3 items as a
# 32x3 f32 fragment per warp, Vec3Max / Vec3Min as lm.reduce, the warp
# aggregates as an 8x3 f32 view; the two atomics as thread 0's read,
# max/min and write of the global totals.
# Fix: nvidia_warp_bvh_total_bounds_block_reduce_in_branch_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def warp_compute_total_bounds(lm, ItemLowers: LM.gmem, ItemUppers: LM.gmem, TotalLower: LM.gmem,
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
        if t0 < num_items:                                  # BUG: if (tid < num_items) around the collectives
            lm.copy(lo, ItemLowers, coords=(t0, 0))
            lm.copy(up, ItemUppers, coords=(t0, 0))
            # BlockReduce(temp_storage).Reduce(upper, Vec3Max, numValid)
            lm.reduce(wagg, up, op="max", axis=0)           # WarpReduce
            lm.copy(aggs[0][w:w + 1, 0:3], wagg)            # lane 0: warp_aggregates[warp_id]
            lm.sync(block)                                                       # expect-error: sync.deadlock
            if w == 0:
                lm.copy(all8, aggs[0])                      # thread 0: ApplyWarpAggregates
                lm.reduce(bup, all8, op="max", axis=0)
            lm.sync(block)                                  # __syncthreads()            # expect-error: sync.deadlock
            # BlockReduce(temp_storage).Reduce(lower, Vec3Min, numValid)
            lm.reduce(wagg, lo, op="min", axis=0)
            lm.copy(aggs[0][w:w + 1, 0:3], wagg)
            lm.sync(block)                                                       # expect-error: sync.deadlock
            if w == 0:
                lm.copy(all8, aggs[0])
                lm.reduce(blo, all8, op="min", axis=0)
                lm.copy(tot, TotalUpper, coords=(0, 0))     # atomic_max(total_upper, block_upper)
                lm.binary(tot, tot, bup, op="max")
                lm.copy(TotalUpper, tot, coords=(0, 0))
                lm.copy(tot, TotalLower, coords=(0, 0))     # atomic_min(total_lower, block_lower)
                lm.binary(tot, tot, blo, op="min")
                lm.copy(TotalLower, tot, coords=(0, 0))
