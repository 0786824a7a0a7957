# BUG (sync.race): facebookexperimental/triton PR #3547 ("[triton][beta]
# Preserve scratch reads after leading barriers", xuzhao9, 2026-09-11;
# Differential Revision D119670476; related upstream triton-lang/triton
# PR #11022 "[MemBar] Fix atomic handling").  A scalar atomic with
# `release` / `acq_rel` semantics is lowered as: a leading bar.sync (the
# ordering barrier), thread 0 issues the global atom and stores the old
# value into shared scratch, bar.sync, every thread loads it back (the
# broadcast of the return value).  MembarAnalysis::update cleared the
# incoming dependencies for the atomic's leading barrier and then returned
# before recording the broadcast's outgoing scratch READS, so when a
# tl.cumsum follows - whose lowering reuses the same scratch for the
# per-warp totals - no barrier was inserted between them: a fast warp's
# scan store overwrites the atomic's result while slower warps still read
# it (corrupted stream-compaction offsets and intermittent illegal memory
# accesses in FBGEMM's TBE backward, test_gpu_tritonbench_triton_table_
# batched_embedding on B200).  The fix keeps processing the op after its
# leading barrier, so its scratch reads are recorded and the hazard
# analysis inserts a barrier before the scan's stores.
# Modelled: num_warps = 4 (four one-warp instances, bar.sync a named
# barrier over all four), the scratch as four i32 words (the atomic's
# broadcast slot is word 0; the scan's warp totals are words 0..3).  The
# global atom is a load of the counter by warp 0 (global memory is not
# modelled); the in-warp part of the scan is lm.reduce in registers; each
# warp reads the totals of the warps before it.
# Fix: fbtriton_membar_atomic_broadcast_scan_scratch_reuse_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def fbtriton_membar_atomic_broadcast_scan_scratch_reuse(lm, Counter: LM.gmem, Flags: LM.gmem,
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
        lm.copy(base, scr[0])                                                         # expect-error: sync.race
        # (BUG) Membar dropped the read above: no barrier before the scan
        # tl.cumsum(flags): per-warp totals through the same scratch
        lm.reduce(tot, flags, op="sum", axis=1)
        lm.copy(scr[w], tot)                                                          # expect-error: sync.race
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
