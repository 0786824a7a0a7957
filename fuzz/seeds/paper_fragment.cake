# The paper's CAKE IR fragment (shared/seeds/000 §7.1), copied verbatim from
# shared/IR.md.  Models the start of a Blackwell (tcgen05) attention kernel:
# one TMA warp fills a 3-slot Q ring, one MMA warp multiplies each slot into
# a TMEM accumulator.
#
# Target: the decorator gives none.  The fragment uses lm.tmem and an MMA
# whose accumulator is TMEM, which exist only on sm_100a, so the corpus
# checks this file as sm_100a (cake check --target sm_100a); the finding
# below is the same under any target with asynchronous MMA.
#
# Expectation, reasoned per IR.md:
#  * q_full: 3 slots, init_count=1; each slot gets exactly one derived
#    expect_tx arrival plus the 32768 bytes of its one TMA load -> each slot
#    completes phase 0 once.  The mma warp waits each slot once (derived
#    phase 0).  No ring wrap-around: the missing empty barrier is NOT a race,
#    because no slot is ever refilled.
#  * 3 x 128x128 bf16 = 98304 bytes = the pool exactly: no layout finding.
#  * The fence_proxy is redundant (TMA writes and tcgen05 reads are both
#    async proxy) but harmless.
#  * BUG: the MMAs are never committed (no lm.mma_commit) and nothing waits
#    for them.  On sm_100a an MMA reads its smem operands (and writes TMEM)
#    until its commit barrier completes, so when the mma warp - the last role
#    to finish - exits, three MMAs may still be reading smem_q.  The block's
#    shared memory is released at exit: sync.async-at-exit.
#    (O and seqlen_q are unused: at most a struct.unused warning.)
#  * Fix: basics/paper_fragment_fixed.cake (commit to a barrier that an
#    epilogue role waits before reading TMEM).
# expect: sync.async-at-exit
@cake.schedule()
def fmha_fwd(lm, Q: LM.tma3d, O: LM.tma2d, seqlen_q: LM.i32):
    pool     = lm.smem(98304)
    smem_q   = pool.view(offset=0, shape=(128,128), dtype=lm.bf16, stage=3)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128,128), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    pipe = lm.pipeline(stages=3)
    q_full = lm.barrier(count=3, prod=[load], cons=[mma],
                        init_count=1, pipeline=pipe)
    with load:
        for stage in lm.range(0, 3):
            smem_q.tma_load(Q, coords=(0,0,stage), stage=stage, barrier=q_full)
    with mma:
        for stage in lm.range(0, 3):
            lm.wait(q_full, stage=stage)
            lm.fence_proxy()
            lm.mma(tmem_acc, smem_q[stage], smem_q[stage], init=(stage == 0))
