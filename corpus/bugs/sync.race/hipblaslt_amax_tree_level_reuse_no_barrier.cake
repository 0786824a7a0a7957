# Real bug: ROCm/rocm-libraries PR #11373 ("fix(hipblaslt): synchronize AMax
# and LayerNorm reduction stages", merged; JIRA AIHPBLAS-4632), in
# inter_wave_reduction() of projects/hipblaslt/tensilelite/Tensile/Ops/
# AMaxGenerator.py (LayerNormGenerator.py has the same loop).  The generated
# AMax kernel (-w 256: four wave64 waves, 32 bytes of LDS) reduces each
# wave's |x| maximum through a small LDS scratch buffer, a tree of levels
# with Offset = W/2, W/4, ..., 1: the upper waves (Offset <= Widx <
# 2*Offset) store their partial to slot Widx - Offset and s_barrier; the
# lower waves (Widx < Offset) s_barrier, then load slot Widx and merge; the
# other waves only s_barrier.  One barrier per level orders a level's stores
# before its loads, but nothing orders a level's loads before the NEXT
# level's stores into the same slots: wave 1, an upper wave at level 2, can
# pass the level-1 barrier, read slot 1, and store its level-2 partial into
# slot 0 while wave 0 has not yet loaded slot 0 at level 1, so wave 0 merges
# its own partial twice and wave 2's is lost (rocJITsu reported the
# write-after-read conflict; the AMax is silently too small).  The fix routes
# every wave (upper, lower and inactive) through a second s_barrier after
# the loads and before the loop reuses LDS; the fixed form is
# hipblaslt_amax_tree_level_reuse_no_barrier_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: each wave64 is a one-warp
# instance (group=1) and s_barrier a named barrier over the role; the tree's
# two levels for W = 4 are unrolled; the intra-wave ds_bpermute reduction is
# the `reduce` on the wave's own fragment; the fp8 scaled store is left out,
# and the result (every thread stores the same value to Dst[0]) is stored by
# wave 0.
# expect: sync.race
@cake.schedule(target="sm_80")
def hipblaslt_amax_tree_level_reuse_no_barrier(lm, In: LM.gmem, Out: LM.gmem):
    pool = lm.smem(32)
    slot = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=2)
    x    = lm.regs(shape=(1, 64), dtype=lm.f32)
    amax = lm.regs(shape=(1, 1), dtype=lm.f32)
    other = lm.regs(shape=(1, 1), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        lm.copy(x, In, coords=(0, 64 * w))                # sum_per_thread*
        lm.unary(x, x, op="abs")
        lm.reduce(amax, x, op="max", axis=1)              # intra_wave_reduction
        # level 1, Offset = 2: waves 2, 3 publish, waves 0, 1 merge
        if w >= 2:
            lm.copy(slot[w - 2], amax)                    # upper: ds_store
        lm.sync(block)
        if w < 2:
            lm.copy(other, slot[w])                       # lower: ds_load  # expect-error: sync.race
            lm.binary(amax, amax, other, op="max")
        # level 2, Offset = 1: wave 1 publishes into slot 0, wave 0 merges
        if w == 1:
            lm.copy(slot[0], amax)                        # upper: ds_store  # expect-error: sync.race
        lm.sync(block)
        if w == 0:
            lm.copy(other, slot[0])
            lm.binary(amax, amax, other, op="max")
        # broadcast: wave 0 stores the result to slot 0, the others load it
        if w == 0:
            lm.copy(slot[0], amax)
        lm.sync(block)
        if w > 0:
            lm.copy(amax, slot[0])
        if w == 0:
            lm.copy(Out, amax, coords=(0, 0))             # output_result
