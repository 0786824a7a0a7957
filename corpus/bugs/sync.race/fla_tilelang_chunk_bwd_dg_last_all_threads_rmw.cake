# BUG (sync.race): fla-org/flash-linear-attention issue #889, PR #890
# ("Fix shared memory race in tilelang chunk_bwd dg_last accumulation",
# 2026-05-11; fla/ops/common/backends/tilelang/chunk_bwd.py).  The TileLang
# chunk backward kernel (USE_G) accumulates dg_last over its V-loop in a
# one-float shared scalar: per V block, two T.reduce_sum calls turn the
# h * dh tile into f_hdh_scalar[0], which every thread then holds, and the
# statement `s_dg_last_acc[0] = s_dg_last_acc[0] + f_hdh_scalar[0]` is
# executed by EVERY thread of the block.  Across warps that is an
# unsynchronized read-modify-write of one shared word: a warp that reads
# the scalar after another warp stored it adds the value twice, so dg is
# non-deterministic run to run (the PR's regression test: 10 backward runs
# with g = 0 differ bitwise).  The fix guards the update with
# `for _i in T.Parallel(1)` (one thread), as the scalar's initialization
# already was.
# Modelled: 128 threads as four one-warp instances (`group=1`); the h / dh
# tiles of a V block loaded into registers (the kernel stages them in
# shared memory through the software pipeline; their ring is not part of
# the bug); T.reduce_sum's cross-warp step as a 4-slot shared workspace
# between two barriers (TileLang's AllReduce); the barrier TileLang's
# ThreadSync puts between consecutive V iterations a named barrier at the
# end of the loop body; the scalar a (1, 1) f32 view (the workspace's
# floats are padded to 16-byte slots: cake asked every ring slot for 16-byte
# alignment before session 23; 4-byte slots pass now, docs/rules/layout.misaligned.md).  Left out: the dq /
# dk / dw GEMMs, the varlen masks.
# Fix: fla_tilelang_chunk_bwd_dg_last_all_threads_rmw_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def fla_tilelang_chunk_bwd_dg_last_all_threads_rmw(lm, H: LM.gmem, DH: LM.gmem, DG: LM.gmem, n_v: LM.i32):
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
            # BUG: every thread runs s_dg_last_acc[0] = s_dg_last_acc[0] + f_hdh_scalar[0]
            lm.copy(acc, s_acc[0])                                       # expect-error: sync.race
            lm.binary(acc, acc, tot, op="add")
            lm.copy(s_acc[0], acc)                                       # expect-error: sync.race
            lm.sync(block)                                               # ThreadSync: the loop-carried barrier
        if w == 0:
            lm.copy(acc, s_acc[0])
            lm.copy(DG, acc, coords=(lm.block_idx(0), 0))
