# BUG (sync.lost-phase): flashinfer-ai/flashinfer PR #3581 "[fix] Fix SM100
# GDN prefill hang" (2026-06-12; issue #3565: the SM100 GDN prefill kernel
# hangs on varlen batches).  In the Blackwell chunked GDN prefill kernel
# the output ring is a CuTe DSL PipelineAsync between compute group 1 and
# the epilogue warp (`o_store_producer, o_store_consumer =
# pipeline.PipelineAsync.create(num_stages=self.smem_o_stages,
# producer_group=cg_cg1, consumer_group=cg_epi, ...).make_participants()`).
# Both compute groups called `o_store_producer.tail()` before exiting, but
# "o_store_producer is owned by the CG1 -> epilogue pipeline.  CG0 never
# acquires or commits this pipeline, so tailing it from CG0 can corrupt
# pipeline lifetime state and trigger a hang."  PipelineAsync.producer_tail
# waits every stage's empty barrier once (`sync_object_empty.wait(
# state.index, state.phase)`, then advance); CG0's producer state was never
# advanced, so it waits each stage with the first-lap producer parity - a
# wait for the phase before the ring's first release.  Once the epilogue
# has released a stage an odd number of times, that parity is the phase in
# progress and CG0 blocks until a release that never comes.  Fix: only
# CG1 tails the pipeline.
# Written in CAKE IR: a TMA load warp (2-stage ring of K tiles), compute
# group 0 (one warpgroup) that turns each K tile into a KS tile in a
# 2-stage shared ring (ks_full / ks_empty, CG0 -> CG1, as the kernel's
# group_order pipeline), compute group 1 that combines it into the O tile
# of the 2-stage output ring (o_full / o_empty = o_store) and tails it, and
# the epilogue warp that TMA-stores each O tile and releases the stage.
# CG0's tail is its wait on each o_empty stage at the fresh state's parity:
# stage=s, phase=-1 (the phase before the ring's first release, IR.md's
# parity trick; an iter= wait on a negative iteration would pass at once,
# which is what lowering emits for a first-lap wait, not what the tail
# executes).
# Left out: the MMA warp and TMEM, the delta-rule math, the state
# load/store, varlen sequence bounds, the CLC scheduler.
# Fix: flashinfer_gdn_cg0_tails_cg1_o_store_pipeline_fixed.cake.
# expect: sync.lost-phase
@cake.schedule(target="sm_100a")
def flashinfer_gdn_cg0_tails_cg1_o_store_pipeline(lm, K: LM.tma2d, O: LM.tma2d, n_chunks: LM.i32):
    pool   = lm.smem(98304)
    smem_k = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_ks   = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_o    = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    k_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    o_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)

    cg0  = lm.role(warps=[0, 1, 2, 3])
    cg1  = lm.role(warps=[4, 5, 6, 7])
    load = lm.role(warps=[8])
    epi  = lm.role(warps=[9])

    kpipe    = lm.pipeline(stages=2)
    k_full   = lm.barrier(prod=[load], cons=[cg0], init_count=1, pipeline=kpipe)
    k_empty  = lm.barrier(prod=[cg0], cons=[load], init_count=1, pipeline=kpipe)
    kspipe   = lm.pipeline(stages=2)
    ks_full  = lm.barrier(prod=[cg0], cons=[cg1], init_count=1, pipeline=kspipe)
    ks_empty = lm.barrier(prod=[cg1], cons=[cg0], init_count=1, pipeline=kspipe)
    opipe    = lm.pipeline(stages=2)
    o_full   = lm.barrier(prod=[cg1], cons=[epi], init_count=1, pipeline=opipe)
    o_empty  = lm.barrier(prod=[epi], cons=[cg1, cg0], init_count=1, pipeline=opipe)

    lm.assume(n_chunks > 0)
    row0 = lm.block_idx(0) * 128

    with load:
        for c in lm.range(0, n_chunks):
            lm.wait(k_empty, iter=c - 2)
            smem_k.tma_load(K, coords=(row0 + c * 128, 0), iter=c, barrier=k_full)

    with cg0:
        for c in lm.range(0, n_chunks):
            lm.wait(k_full, iter=c)
            lm.copy(k_r, smem_k[c])
            lm.fence_proxy()
            lm.arrive(k_empty, iter=c)
            lm.binary(k_r, k_r, 0.5, op="mul")
            lm.wait(ks_empty, iter=c - 2)
            lm.copy(s_ks[c], k_r)
            lm.arrive(ks_full, iter=c)
        for s in lm.range(0, 2):
            lm.wait(o_empty, stage=s, phase=-1)                                      # expect-error: sync.lost-phase

    with cg1:
        for c in lm.range(0, n_chunks):
            lm.wait(ks_full, iter=c)
            lm.copy(o_r, s_ks[c])
            lm.arrive(ks_empty, iter=c)
            lm.wait(o_empty, iter=c - 2)
            lm.copy(s_o[c], o_r)
            lm.fence_proxy()
            lm.arrive(o_full, iter=c)
        for s in lm.range(0, 2):
            lm.wait(o_empty, iter=n_chunks + s - 2)

    with epi:
        for c in lm.range(0, n_chunks):
            lm.wait(o_full, iter=c)
            s_o.tma_store(O, coords=(row0 + c * 128, 0), iter=c)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(o_empty, iter=c)
