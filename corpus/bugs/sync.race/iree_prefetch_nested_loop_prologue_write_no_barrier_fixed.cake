# Fixed form of iree_prefetch_nested_loop_prologue_write_no_barrier.cake
# (iree-org/iree PR #22669, merged, fixing issue #22468; kept for nested
# loops by PR #22868, merged, fixing issue #22857): ROCDLPrefetchSharedMemory-
# Copy inserts a gpu.barrier in the prologue before its first shared memory
# write ("needBarrierBeforeWrite = true because the epilogue of the previous
# outer iteration may have read from shared memory"), so every wave's last
# MFMA reads of outer iteration o are done before any wave refills the LDS
# tiles for iteration o + 1.  Written as the broken form: four wave64s as
# one-warp instances of an sm_80 role, gpu.barrier a named barrier, the
# inner trip count 3, the outer trip count a parameter.
# expect: pass
@cake.schedule(target="sm_80")
def iree_prefetch_nested_loop_prologue_write_no_barrier_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, n_outer: LM.i32):
    pool = lm.smem(8192)
    sa   = pool.view(offset=0, shape=(64, 32), dtype=lm.f16)
    sb   = pool.view(offset=4096, shape=(64, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(16, 32), dtype=lm.f16)
    rb   = lm.regs(shape=(16, 32), dtype=lm.f16)
    acc  = lm.regs(shape=(32, 32), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w  = lm.instance()
        wm = w // 2
        wn = w % 2
        lm.fill(acc, 0.0)
        for o in lm.range(0, n_outer):
            # prologue: read(0), write(0)
            lm.copy(ra, A, coords=(16 * w, 96 * o))
            lm.copy(rb, B, coords=(16 * w, 96 * o))
            lm.sync(block)                                # the prologue barrier #22669 adds
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            # kernel: k = 0, 1
            for k in lm.range(0, 2):
                lm.copy(ra, A, coords=(16 * w, 96 * o + 32 * (k + 1)))
                lm.copy(rb, B, coords=(16 * w, 96 * o + 32 * (k + 1)))
                lm.sync(block)
                lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
                lm.sync(block)
                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
                lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            # epilogue: compute(2)
            lm.sync(block)
            lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
        lm.copy(C, acc, coords=(32 * wm, 32 * wn))
