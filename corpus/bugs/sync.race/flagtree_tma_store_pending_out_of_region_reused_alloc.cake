# BUG (sync.race): FlagTree (flagos-ai/FlagTree) PR #1166 ("[QC][Nvidia]
# Barrier & Sync Optimization"), review of 2026-09-17, section 2.1 "The
# source buffer can be reused before the wait": the PR's TMA store
# scheduling lets pending TMA store groups flow out of scf.if / scf.for
# (region terminators no longer drain with a TMA store wait), while reuse
# detection only looks at alias roots.  A staging buffer allocated inside
# the region is dead once the region exits, so shared-memory allocation
# hands its offset to the next local_alloc; the next local_store writes
# that memory while the TMA engine may still be reading the region's
# store ("A bar.sync cannot prevent this").
# Fix (the behaviour before the PR, which the review asks to restore for
# this case): drain the pending stores (cp.async.bulk.wait_group.read 0)
# before the region's buffer is given to another allocation; here at the
# end of the if.
# Written in CAKE IR: one warpgroup; the region's buffer and the later
# allocation are two views at the same pool offset (the allocator's
# reuse); the condition is a kernel parameter; each staging write is
# st.shared + fence.proxy.async + TMA store + commit, and the kernel drains
# its stores before it exits.  Left out: the compute producing the tiles.
# Fix: flagtree_tma_store_pending_out_of_region_reused_alloc_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def flagtree_tma_store_pending_out_of_region_reused_alloc(lm, Out0: LM.tma2d, Out1: LM.tma2d, flag: LM.i32):
    pool   = lm.smem(16384)
    region = pool.view(offset=0, shape=(64, 64), dtype=lm.f16)
    later  = pool.view(offset=0, shape=(64, 64), dtype=lm.f16)
    frag   = lm.regs(shape=(64, 64), dtype=lm.f16)

    wg = lm.role(warps=[0, 1, 2, 3])

    row0 = lm.block_idx(0) * 64

    with wg:
        if flag > 0:
            lm.fill(frag, 1.0)
            lm.copy(region[0], frag)
            lm.fence_proxy()
            region.tma_store(Out0, coords=(row0, 0), stage=0)
            lm.tma_store_commit()
        lm.fill(frag, 2.0)
        lm.copy(later[0], frag)                                          # expect-error: sync.race
        lm.fence_proxy()
        later.tma_store(Out1, coords=(row0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
