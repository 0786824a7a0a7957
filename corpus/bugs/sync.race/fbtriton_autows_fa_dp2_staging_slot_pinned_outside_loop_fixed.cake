# FIXED: facebookexperimental/triton PR #3658 ("[triton][beta] Fix gpu
# hang for autows"): the twin of
# fbtriton_autows_fa_dp2_staging_slot_pinned_outside_loop.cake in which
# the two channels rotate through the shared 2-slot staging ring outside
# the loops as they would inside one: data partition dp uses slot dp and
# the first phase of its slot, on both ends.  Same model and scaling as
# the broken twin.
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_autows_fa_dp2_staging_slot_pinned_outside_loop_fixed(lm, O: LM.tma2d):
    pool  = lm.smem(16384)
    sO    = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    o     = lm.regs(shape=(64, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)   # data partitions 0 and 1
    store   = lm.role(warps=[8])                                 # epilogue_store

    ring  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[compute], cons=[store], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[store], cons=[compute], init_count=1, pipeline=ring)

    m0 = lm.block_idx(0) * 128

    with compute:
        dp = lm.instance()
        lm.fill(o, 0.0)                              # this partition's O rows
        lm.wait(empty, iter=dp - 2)                  # the fix: channel dp's slot, first lap
        lm.copy(sO[dp], o)
        lm.fence_proxy()
        lm.arrive(full, iter=dp)

    with store:
        for dp in lm.range(0, 2):
            lm.wait(full, iter=dp)                   # the fix: the channel's own slot
            sO.tma_store(O, coords=(m0 + 64 * dp, 0), iter=dp)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(empty, iter=dp)
