# BUG (sync.race): facebookexperimental/triton PR #3658 ("[triton][beta]
# Fix gpu hang for autows", open when crawled).  The AutoWS Blackwell
# flash-attention forward with DATA_PARTITION=2
# (fused_attention_ws_auto_tma_dp.py, HEAD_DIM=64, not persistent): the
# memory planner fuses both data partitions' output TMA stores into one
# staging buffer with copy = 2, so the two channels share one CommChannel
# with 2-slot full/empty mbarrier arrays "whose slots they must rotate
# through".  Both endpoints sit outside every loop, and both out-of-loop
# paths of WSCodePartition.cpp hard-coded the rotation away: "both
# partitions landed on slot 0 with a non-flipping phase, leaving slot 1
# allocated and init_barrier'd but dead.  The second arrive then had no
# matching wait and the full/empty parity never recovered" (a hang on
# B200; compute-sanitizer synccheck: "Missing wait" at the store
# partition's second arrive on the staging empty barrier).  The fix gives
# each channel its slot and phase from the channel's position in the ring.
# Modelled: the two compute partitions (data partitions 0 and 1, one
# warpgroup each) write their 64-row O tile into the staging slot and
# arrive on `full`; the single-warp epilogue_store partition waits,
# TMA-stores the slot and releases it on `empty`.  With slot 0 and phase
# 0 pinned, both partitions write staging slot 0 (the second overwrites
# the first while the first's TMA store may still read it) and the store
# partition's second wait means a phase that has already completed.
# Left out: the attention mainloop (O arrives in registers: a fill), the
# LSE output.
# Fix: fbtriton_autows_fa_dp2_staging_slot_pinned_outside_loop_fixed.cake.
# expect: sync.race
# may-also: sync.arrival-overflow sync.lost-phase data.stale-read
@cake.schedule(target="sm_100a")
def fbtriton_autows_fa_dp2_staging_slot_pinned_outside_loop(lm, O: LM.tma2d):
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
        lm.wait(empty, stage=0, phase=-1)            # pinned: slot 0, phase -1 (passes)
        lm.copy(sO[0], o)                            # expect-error: sync.race
        lm.fence_proxy()
        lm.arrive(full, stage=0, phase=0)            # pinned: slot 0, phase 0

    with store:
        for dp in lm.range(0, 2):
            lm.wait(full, stage=0, phase=0)          # pinned: slot 0, phase 0
            sO.tma_store(O, coords=(m0 + 64 * dp, 0), stage=0)   # expect-error: sync.race
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(empty, stage=0, phase=0)
