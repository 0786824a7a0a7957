# BUG (sync.race): flashinfer-ai/flashinfer issue #5334, PR #5335
# "fix(gdn): fence TMEM loads before cg1 shared_acc releases"
# (2026-09-18).  In the Blackwell GDN chunked kernel
# (compute_group_1_chunk), compute group 1 copies the KS accumulator out of
# the shared TMEM stage with tcgen05.ld (the t2r copy), scales it and then
# releases the stage (ks_handle.release(), an mbarrier arrive) with no
# tcgen05.wait::ld in between: "two cg1_shared_acc consumer releases
# signaled the producer that the TMEM stage was free while tcgen05.ld
# (LDTM) into that stage was still in flight.  With
# tmem_cg1_shared_acc_stages = 1, the producer's next tcgen05.mma can
# overwrite cells mid-read."  (The same for nv_handle after the NV t2r.)
# Fix (PR #5335): cute.arch.fence_view_async_tmem_load() (tcgen05.wait::ld)
# immediately before each release, as the cg0 releases already had.
# Written in CAKE IR with the asynchronous TMEM moves of
# docs/ir-extensions.md: a TMA load warp (2-stage ring of K and S tiles),
# an MMA warp that computes KS = K S^T per chunk into one TMEM stage
# (acc_full / acc_empty, one slot), and compute group 1 (one warpgroup)
# that lm.tmem_load's the stage, releases it, and only then waits for the
# load (lm.tmem_load_wait), scales and stores the result.  In the kernel
# the scale read the registers before any wait (the SASS register
# scoreboard ordered those reads, not the TMEM read against the arrive);
# the IR's only "registers ready" point is lm.tmem_load_wait, so the scale
# follows it in both forms and the forms differ in where the release sits.
# Left out: the NV path (same bug), compute group 0, the delta-rule math.
# Fix: flashinfer_gdn_cg1_shared_acc_release_before_ld_wait_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def flashinfer_gdn_cg1_shared_acc_release_before_ld_wait(lm, K: LM.tma2d, S: LM.tma2d, Out: LM.gmem,
                                                        n_chunks: LM.i32):
    pool   = lm.smem(65536)
    smem_k = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_s = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    ks_r   = lm.regs(shape=(128, 128), dtype=lm.f32)

    cg1  = lm.role(warps=[0, 1, 2, 3])
    load = lm.role(warps=[4])
    mma  = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[cg1], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[cg1], cons=[mma], init_count=1)

    row0 = lm.block_idx(0) * 128

    with load:
        for c in lm.range(0, n_chunks):
            lm.wait(empty, iter=c - 2)
            smem_k.tma_load(K, coords=(row0, c * 64), iter=c, barrier=full)
            smem_s.tma_load(S, coords=(c * 128, 0), iter=c, barrier=full)

    with mma:
        for c in lm.range(0, n_chunks):
            lm.wait(full, iter=c)
            lm.wait(acc_empty, iter=c - 1)
            lm.mma(acc, smem_k[c], smem_s[c], init=True)                        # expect-error: sync.race
            lm.mma_commit(barrier=empty, iter=c)
            lm.mma_commit(barrier=acc_full, iter=c)

    with cg1:
        for c in lm.range(0, n_chunks):
            lm.wait(acc_full, iter=c)
            lm.tmem_load(ks_r, acc)                                             # expect-error: sync.race
            lm.arrive(acc_empty, iter=c)                                        # expect-error: sync.race
            lm.tmem_load_wait()
            lm.binary(ks_r, ks_r, 0.5, op="mul")
            lm.copy(Out, ks_r, coords=(c * 128, row0))
