# Fixed form of hipblaslt_amax_tree_level_reuse_no_barrier.cake (ROCm/
# rocm-libraries PR #11373, merged): inter_wave_reduction() now sends the
# upper, lower and inactive waves of every level to a common `label_sync`
# block whose second s_barrier follows the lower waves' LDS loads, so no
# level's stores reach a slot before the previous level's loads of it are
# done ("the lower-wave read occurs between the publication and reuse
# barriers", the PR's generator test).  Written as the broken form: four
# wave64 waves as one-warp instances of an sm_80 role, s_barrier as a named
# barrier, the two levels for W = 4 unrolled.
# expect: pass
@cake.schedule(target="sm_80")
def hipblaslt_amax_tree_level_reuse_no_barrier_fixed(lm, In: LM.gmem, Out: LM.gmem):
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
            lm.copy(other, slot[w])                       # lower: ds_load
            lm.binary(amax, amax, other, op="max")
        lm.sync(block)                                    # label_sync: LDS reuse barrier
        # level 2, Offset = 1: wave 1 publishes into slot 0, wave 0 merges
        if w == 1:
            lm.copy(slot[0], amax)                        # upper: ds_store
        lm.sync(block)
        if w == 0:
            lm.copy(other, slot[0])
            lm.binary(amax, amax, other, op="max")
        lm.sync(block)                                    # label_sync: LDS reuse barrier
        # broadcast: wave 0 stores the result to slot 0, the others load it
        if w == 0:
            lm.copy(slot[0], amax)
        lm.sync(block)
        if w > 0:
            lm.copy(amax, slot[0])
        if w == 0:
            lm.copy(Out, amax, coords=(0, 0))             # output_result
