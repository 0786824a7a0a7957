# BUG (sync.race): triton-lang/triton issue #11047 ("warpgroup_mma_wait
# does not properly synchronize across warpgroups", 2026-07-25), fixed by
# PR #11056 ("[Reapply][Backend] Fix WarpGroupDotWaitOp semantics when
# num_warps > 4", re-landing PR #9484).  In a Gluon kernel with two
# warpgroups (num_warps = 8) each warpgroup multiplies its 64 rows of A by
# shared B tiles with async wgmma and calls warpgroup_mma_wait(0), then the
# loop's next cp.async copies (spread over all 8 warps by the blocked
# layout) overwrite the B tiles.  wgmma.wait_group only waits for the
# issuing warpgroup's MMAs, and Membar treated the wait as if it covered
# the CTA, so no barrier separates the other warpgroup's still-running
# wgmma reads of B from the refill (the issue's reproducer gives wrong
# sums; the fixed compiler emits wait_group 0 -> barrier.cta.sync -> the
# conflicting cp.async).
# Modelled: D = 64, two warpgroups as two instances of one role; A
# (128 x 64) copied once, B0 and B1 (64 x 64) refilled every block, each
# warpgroup copying half of every tile's rows with cp.async (the blocked
# layout's split), commit, wait_group 0, fence.proxy.async (Triton's
# fence before a wgmma reading cp.async data) and a CTA barrier before the
# wgmmas; the accumulators are stored after NBLK blocks.
# Fix: triton_gluon_wgmma_wait_not_cta_wide_fixed.cake.
# expect: sync.race
# may-also: data.stale-read proxy.missing-fence
@cake.schedule(target="sm_90a")
def triton_gluon_wgmma_wait_not_cta_wide(lm, A: LM.gmem, B0: LM.gmem, B1: LM.gmem, Out: LM.gmem, nblk: LM.i32):
    lm.assume(nblk > 0)
    pool  = lm.smem(32768)
    a_s   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    b0_s  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    b1_s  = pool.view(offset=24576, shape=(64, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    a_h   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")   # half g of A: slot g
    b0_h  = pool.view(offset=16384, shape=(32, 64),  dtype=lm.bf16, stages=2, swizzle="128B")   # half g of B0: slot g
    b1_h  = pool.view(offset=24576, shape=(32, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    acc0  = lm.regs(shape=(64, 64), dtype=lm.f32)
    acc1  = lm.regs(shape=(64, 64), dtype=lm.f32)

    wgs = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    cta = lm.named_barrier(roles=[wgs])

    with wgs:
        g = lm.instance()
        r = 64 * g
        h = 32 * g
        a_h.cp_async(A, coords=(r, 0), stage=g)
        for j in lm.range(0, nblk):
            b0_h.cp_async(B0, coords=(j * 64 + h, 0), stage=g)   # expect-error: sync.race
            b1_h.cp_async(B1, coords=(j * 64 + h, 0), stage=g)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.fence_proxy()
            lm.sync(cta)
            lm.mma(acc0, a_s[0][r:r + 64, :], b0_s[j], init=(j == 0))
            lm.mma(acc1, a_s[0][r:r + 64, :], b1_s[j], init=(j == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)                 # warpgroup_mma_wait(0): this warpgroup's wgmmas only
            # BUG: no CTA barrier before the next block's cp.async overwrites B0 / B1
        lm.copy(Out, acc0, coords=(r, 0))
        lm.copy(Out, acc1, coords=(r, 64))
