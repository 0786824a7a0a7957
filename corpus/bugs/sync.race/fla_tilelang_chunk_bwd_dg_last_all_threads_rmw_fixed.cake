# FIXED form of fla_tilelang_chunk_bwd_dg_last_all_threads_rmw.cake
# (fla-org/flash-linear-attention PR #890): the dg_last update runs on one
# thread (`for _i in T.Parallel(1)`), like the scalar's initialization;
# the loop-carried barrier orders it before the next V block's update.
# expect: pass
@cake.schedule(target="sm_90a")
def fla_tilelang_chunk_bwd_dg_last_one_thread_fixed(lm, H: LM.gmem, DH: LM.gmem, DG: LM.gmem, n_v: LM.i32):
    lm.assume(n_v >= 1)
    pool  = lm.smem(1024)
    s_acc = pool.view(offset=0,   shape=(1, 1), dtype=lm.f32)            # s_dg_last_acc[1]
    red   = pool.view(offset=128, shape=(1, 4), dtype=lm.f32, stages=4)  # reduce_sum workspace, a float per warp (16-byte slots)
    h     = lm.regs(shape=(16, 64), dtype=lm.f32)
    dh    = lm.regs(shape=(16, 64), dtype=lm.f32)
    row   = lm.regs(shape=(16, 1), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    oth   = lm.regs(shape=(1, 1), dtype=lm.f32)
    tot   = lm.regs(shape=(1, 1), dtype=lm.f32)                           # f_hdh_scalar[0]
    acc   = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        if w == 0:                                                       # for _i in T.Parallel(1): s_dg_last_acc[0] = 0
            lm.fill(acc, 0.0)
            lm.copy(s_acc[0], acc)
        lm.sync(block)
        for v in lm.range(0, n_v):
            lm.copy(h, H, coords=(64 * lm.block_idx(0) + 16 * w, 64 * v))
            lm.copy(dh, DH, coords=(64 * lm.block_idx(0) + 16 * w, 64 * v))
            lm.binary(h, h, dh, op="mul")                                # f_hdh = s_h * s_dh
            lm.reduce(row, h, op="sum", axis=1)                          # T.reduce_sum(f_hdh, f_hdh_row, dim=1)
            lm.reduce(part, row, op="sum", axis=0)                       # T.reduce_sum(f_hdh_row, f_hdh_scalar, dim=0)
            lm.copy(red[w][:, 0:1], part)                                        #   (its cross-warp all-reduce)
            lm.sync(block)
            lm.fill(tot, 0.0)
            for s in lm.range(0, 4):
                lm.copy(oth, red[s][:, 0:1])
                lm.binary(tot, tot, oth, op="add")
            lm.sync(block)
            if w == 0:                                                   # the fix: for _i in T.Parallel(1)
                lm.copy(acc, s_acc[0])
                lm.binary(acc, acc, tot, op="add")
                lm.copy(s_acc[0], acc)
            lm.sync(block)                                               # ThreadSync: the loop-carried barrier
        if w == 0:
            lm.copy(acc, s_acc[0])
            lm.copy(DG, acc, coords=(lm.block_idx(0), 0))
