# FIXED form of fbtriton_membar_atomic_broadcast_scan_scratch_reuse.cake
# (facebookexperimental/triton PR #3547): Membar records the atomic
# broadcast's scratch reads, so the hazard analysis inserts a bar.sync
# before the scan's stores into the same scratch.  Same model as the broken
# file.
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_membar_atomic_broadcast_scan_scratch_reuse_fixed(lm, Counter: LM.gmem, Flags: LM.gmem,
                                                              Offsets: LM.gmem):
    pool  = lm.smem(64)
    scr   = pool.view(offset=0, shape=(1, 1), dtype=lm.i32, stages=4)
    old   = lm.regs(shape=(1, 1), dtype=lm.i32)
    base  = lm.regs(shape=(1, 1), dtype=lm.i32)
    flags = lm.regs(shape=(1, 32), dtype=lm.i32)
    tot   = lm.regs(shape=(1, 1), dtype=lm.i32)
    pre   = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        b = lm.block_idx(0)
        lm.copy(flags, Flags, coords=(b, 32 * w))
        # tl.atomic_add(counter, n, sem="release"), scalar
        lm.sync(bar)                                # the leading ordering barrier
        if w == 0:
            lm.copy(old, Counter, coords=(0, 0))    # thread 0: atom.add.release.gpu
            lm.copy(scr[0], old)                    # return value -> scratch
        lm.sync(bar)
        lm.copy(base, scr[0])
        lm.sync(bar)                                # the fix: Membar sees the read, inserts the barrier
        # tl.cumsum(flags): per-warp totals through the same scratch
        lm.reduce(tot, flags, op="sum", axis=1)
        lm.copy(scr[w], tot)
        lm.sync(bar)
        lm.fill(pre, 0)
        if w >= 1:
            lm.copy(tot, scr[0])
            lm.binary(pre, pre, tot, op="add")
        if w >= 2:
            lm.copy(tot, scr[1])
            lm.binary(pre, pre, tot, op="add")
        if w >= 3:
            lm.copy(tot, scr[2])
            lm.binary(pre, pre, tot, op="add")
        lm.binary(pre, pre, base, op="add")
        lm.copy(Offsets, pre, coords=(b, w))
