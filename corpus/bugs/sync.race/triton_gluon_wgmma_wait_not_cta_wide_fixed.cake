# FIX of triton_gluon_wgmma_wait_not_cta_wide.cake: triton-lang/triton
# PR #11056 (issue #11047): with more than 4 warps a warp_group_dot_wait
# is no longer taken to cover the other warpgroups' wgmmas, and Membar
# inserts a CTA barrier after wait_group 0 and before the next block's
# cp.async into the B tiles (the generated code of the issue's reproducer:
# wait_group 0 -> barrier.cta.sync -> cp.async).  Same model as the broken
# file.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_gluon_wgmma_wait_then_cta_barrier_fixed(lm, A: LM.gmem, B0: LM.gmem, B1: LM.gmem, Out: LM.gmem, nblk: LM.i32):
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
            b0_h.cp_async(B0, coords=(j * 64 + h, 0), stage=g)
            b1_h.cp_async(B1, coords=(j * 64 + h, 0), stage=g)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.fence_proxy()
            lm.sync(cta)
            lm.mma(acc0, a_s[0][r:r + 64, :], b0_s[j], init=(j == 0))
            lm.mma(acc1, a_s[0][r:r + 64, :], b1_s[j], init=(j == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)                 # warpgroup_mma_wait(0): this warpgroup's wgmmas only
            lm.sync(cta)                           # the fix: barrier.cta.sync before the conflicting cp.async
        lm.copy(Out, acc0, coords=(r, 0))
        lm.copy(Out, acc1, coords=(r, 64))
