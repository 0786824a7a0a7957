# FIXED form of nvfuser_warp_reduce_then_broadcast_no_trailing_sync.cake
# (NVIDIA/Fuser PR #489): warpReduceTIDX ends with block_sync::sync()
# ("needs sync, otherwise other warps may access shared memory before this
# reduction is done"), so no broadcast source writes shared_mem[y] before
# warp 0 of every row has read its partials.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def nvfuser_warp_reduce_then_broadcast_no_trailing_sync_fixed(lm, T31: LM.gmem, T37: LM.gmem,
                                                              T4: LM.gmem, T5: LM.gmem):
    pool = lm.smem(64)
    sm   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=4)
    x8   = lm.regs(shape=(1, 32), dtype=lm.f32)
    x11  = lm.regs(shape=(1, 32), dtype=lm.f32)
    r    = lm.regs(shape=(1, 1), dtype=lm.f32)
    p    = lm.regs(shape=(1, 1), dtype=lm.f32)
    t8   = lm.regs(shape=(1, 1), dtype=lm.f32)
    t11  = lm.regs(shape=(1, 1), dtype=lm.f32)
    o8   = lm.regs(shape=(1, 1), dtype=lm.f32)
    o11  = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w  = lm.instance()
        gy = w // 2
        wx = w % 2
        b  = lm.block_idx(0)
        lm.copy(x8, T31, coords=(2 * b + gy, 32 * wx))
        lm.copy(x11, T37, coords=(2 * b + gy, 32 * wx))
        lm.fill(t8, 0.0)
        lm.fill(t11, 0.0)
        # warp::warpReduceTIDX(T8[0], T31[0], ...)
        lm.reduce(r, x8, op="sum", axis=1)
        lm.sync(bar)
        lm.copy(sm[w], r)                           # shared_mem[smem_offset + warp_idx]
        lm.sync(bar)
        if wx == 0:
            lm.copy(r, sm[2 * gy])
            lm.copy(p, sm[2 * gy + 1])
            lm.binary(r, r, p, op="add")
            lm.binary(t8, t8, r, op="add")          # reduction_op(out, reduce_val)
        lm.sync(bar)                                # the fix: block_sync::sync() at the end
        # warp::warpReduceTIDX(T11[0], T37[0], ...)
        lm.reduce(r, x11, op="sum", axis=1)
        lm.sync(bar)
        lm.copy(sm[w], r)
        lm.sync(bar)
        if wx == 0:
            lm.copy(r, sm[2 * gy])
            lm.copy(p, sm[2 * gy + 1])
            lm.binary(r, r, p, op="add")
            lm.binary(t11, t11, r, op="add")
        lm.sync(bar)                                # the fix: block_sync::sync() at the end
        # broadcast::blockBroadcast<true, false, false>(T9, T8, ...)
        if wx == 0:
            lm.copy(sm[gy], t8)       
        lm.sync(bar)
        lm.copy(o8, sm[gy])
        lm.sync(bar)
        # broadcast::blockBroadcast<true, false, false>(T12, T11, ...)
        if wx == 0:
            lm.copy(sm[gy], t11)
        lm.sync(bar)
        lm.copy(o11, sm[gy])
        lm.sync(bar)
        lm.copy(T4, o8, coords=(2 * b + gy, w))
        lm.copy(T5, o11, coords=(2 * b + gy, w))
