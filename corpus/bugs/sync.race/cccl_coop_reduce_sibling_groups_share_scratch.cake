# BUG (sync.race): NVIDIA/cccl PR #10985 ("[cudax] Isolate and synchronize
# reduce scratch", 2026-08-24).  cudax's coop::reduce over a mapped warp
# group kept its temporary storage in one block-wide __shared__ _Scratch and
# indexed the per-warp partials with the warp's rank WITHIN its group.
# Partitioning a block into groups of three warps gives
#     physical block warp:  0 1 2 | 3 4 5 | 6
#     rank within group:    0 1 2 | 0 1 2 | invalid
#     old scratch slot:     0 1 2 | 0 1 2 | -
# "Physical warps 0 and 3 could therefore use the same ... TempStorage at the
# same time.  The groups also shared partial and broadcast storage.  A
# barrier within one group does not synchronize the other group."  Each
# group reduces (warp reduce, partial to scratch[rank], group barrier, the
# root warp reduces the partials and writes the broadcast slot, group
# barrier, every warp reads the result), and the two groups run
# concurrently: group 1's partials overwrite group 0's before its root read
# them.  The fix gives every group its own scratch (indexed by the group,
# not only the rank in it).
# Modelled: a 7-warp block; group 0 = warps 0-2 and group 1 = warps 3-5 as
# two roles of one-warp instances, each with its own named barrier (the
# group's synchronizer, bar.sync over its 96 threads); warp 6 idles.  The
# partials as a 1x3 f32 tile (rank r's word [0:1, r:r+1]) and the broadcast
# as a 1x1 tile.  Left out: the per-warp WarpReduce TempStorage (warp
# shuffles here), the second defect of the PR (the block/cluster/grid
# paths returning before every participant consumed the result).
# Fix: cccl_coop_reduce_sibling_groups_share_scratch_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a", warps=7)
def cccl_coop_reduce_sibling_groups_share_scratch(lm, X: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(1024)
    parts = pool.view(offset=0,   shape=(1, 3), dtype=lm.f32)     # __partials_[nwarps_in_group]
    bcast = pool.view(offset=128, shape=(1, 1), dtype=lm.f32)     # broadcast slot
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    allp  = lm.regs(shape=(1, 3), dtype=lm.f32)
    res   = lm.regs(shape=(1, 1), dtype=lm.f32)

    g0   = lm.role(warps=[0, 1, 2], group=1)
    g1   = lm.role(warps=[3, 4, 5], group=1)
    bar0 = lm.named_barrier(roles=[g0])
    bar1 = lm.named_barrier(roles=[g1])

    with g0:
        r = lm.instance()
        lm.copy(x, X, coords=(0, 32 * r))
        lm.reduce(part, x, op="sum", axis=1)               # warp reduce
        lm.copy(parts[0][0:1, r:r + 1], part)              # scratch.__partials_[rank]   # expect-error: sync.race
        lm.sync(bar0)
        if r == 0:
            lm.copy(allp, parts[0])                        # root reads the partials     # expect-error: sync.race
            lm.reduce(res, allp, op="sum", axis=1)
            lm.copy(bcast[0], res)                         # expect-error: sync.race
        lm.sync(bar0)
        lm.copy(res, bcast[0])                             # expect-error: sync.race
        lm.copy(Out, res, coords=(0, r))

    with g1:
        r = lm.instance()
        lm.copy(x, X, coords=(1, 32 * r))
        lm.reduce(part, x, op="sum", axis=1)
        lm.copy(parts[0][0:1, r:r + 1], part)              # the same words as group 0   # expect-error: sync.race
        lm.sync(bar1)
        if r == 0:
            lm.copy(allp, parts[0])                        # expect-error: sync.race
            lm.reduce(res, allp, op="sum", axis=1)
            lm.copy(bcast[0], res)                         # expect-error: sync.race
        lm.sync(bar1)
        lm.copy(res, bcast[0])                             # expect-error: sync.race
        lm.copy(Out, res, coords=(1, r))
