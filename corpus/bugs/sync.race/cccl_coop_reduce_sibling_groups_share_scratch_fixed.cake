# FIXED form of cccl_coop_reduce_sibling_groups_share_scratch.cake
# (NVIDIA/cccl PR #10985): every warp group gets its own scratch, the
# partials and the broadcast slot indexed by the group as well as the rank
# in it (group 0 uses partial words 0-2 and broadcast word 0, group 1 words
# 3-5 and broadcast word 1), so the groups' independent barriers are
# enough.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a", warps=7)
def cccl_coop_reduce_sibling_groups_share_scratch_fixed(lm, X: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(1024)
    parts = pool.view(offset=0,   shape=(1, 6), dtype=lm.f32)     # per-group partials
    bcast = pool.view(offset=128, shape=(1, 2), dtype=lm.f32)     # per-group broadcast
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
        lm.reduce(part, x, op="sum", axis=1)
        lm.copy(parts[0][0:1, r:r + 1], part)
        lm.sync(bar0)
        if r == 0:
            lm.copy(allp, parts[0][0:1, 0:3])
            lm.reduce(res, allp, op="sum", axis=1)
            lm.copy(bcast[0][0:1, 0:1], res)
        lm.sync(bar0)
        lm.copy(res, bcast[0][0:1, 0:1])
        lm.copy(Out, res, coords=(0, r))

    with g1:
        r = lm.instance()
        lm.copy(x, X, coords=(1, 32 * r))
        lm.reduce(part, x, op="sum", axis=1)
        lm.copy(parts[0][0:1, 3 + r:4 + r], part)
        lm.sync(bar1)
        if r == 0:
            lm.copy(allp, parts[0][0:1, 3:6])
            lm.reduce(res, allp, op="sum", axis=1)
            lm.copy(bcast[0][0:1, 1:2], res)
        lm.sync(bar1)
        lm.copy(res, bcast[0][0:1, 1:2])
        lm.copy(Out, res, coords=(1, r))
