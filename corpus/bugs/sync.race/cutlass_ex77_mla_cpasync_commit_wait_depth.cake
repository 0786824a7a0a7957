# BUG (sync.race): NVIDIA/cutlass PR #2502 ("fix: too early producer commit
# in examples/77_blackwell_fmha/kernel/sm100_fmha_mla_tma_warpspecialized.hpp",
# open; the same file ships in vLLM and SGLang).  The cp.async variant of the
# Blackwell MLA kernel (`load_cpasync`, kIsCpAsync) first commits StagesPV
# empty cp.async groups, then per loaded stage does producer_acquire, the
# cp.async copies of the stage, cp_async_fence(); once StagesPV - 1 stages
# are in flight (`pipeline_offset == StagesPV - 1`) it calls
# `cp_async_wait<StagesPV - 1>()` and `producer_commit` of the OLDEST
# uncommitted stage.  After load g the newest StagesPV - 1 groups are the
# real loads g - StagesPV + 2 .. g, so wait_group StagesPV - 1 guarantees
# only the loads up to g - StagesPV + 1: the stage it commits,
# g - StagesPV + 2, may still be in flight when the MMA warp's
# tcgen05.mma reads it (the PR author: "StagesPV - 1 copies are issued
# before cp_async_wait<StagesPV - 1>() so no copy is waited for").  The
# drain loop after the K loop (`while (pipeline_offset > 0)`: an empty
# group, `cp_async_wait<StagesPV - 1>()`, commit) is one short the same
# way.  A maintainer could not reproduce wrong results at the shipped
# StagesPV; the PR's author sees them with a smaller StagesPV.
# Modelled: StagesPV = 4 (the kernel has 24 / sizeof(Element)), one loader
# role for the two cp.async load warps, the KV-latent stream only (Q is
# copied with the first stage, as the kernel does), one 1-CTA tcgen05 MMA
# warp accumulating Q K^T into TMEM and an epilogue warpgroup; the
# fence.proxy.async between the landed generic-proxy writes and the MMA's
# async-proxy reads is written after the wait.  Left out: the 2-SM MMA,
# the page table pipeline, the P V half of the stream (it shares the ring).
# Fix: cutlass_ex77_mla_cpasync_commit_wait_depth_fixed.cake.
# expect: sync.race
# may-also: proxy.missing-fence
@cake.schedule(target="sm_100a")
def cutlass_ex77_mla_cpasync_commit_wait_depth(lm, Q: LM.gmem, KV: LM.gmem, O: LM.gmem, K: LM.i32):
    lm.assume(K >= 128)             # at least StagesPV - 2 loads (the kernel has IterationsQK >= 9)
    n = lm.cdiv(K, 64)
    pool     = lm.smem(81920)
    smem_q   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_kc  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc      = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r        = lm.regs(shape=(32, 32), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5, 6])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    m0 = lm.block_idx(0) * 128
    kv0 = lm.block_idx(1) * K

    with load:
        for i in lm.range(0, 4):                    # StagesPV empty groups
            lm.cp_async_commit()
        for g in lm.range(0, n):                    # load_stage
            lm.wait(empty, iter=g - 4)              # producer_acquire
            if g == 0:
                smem_q.cp_async(Q, coords=(m0, 0), stage=0)  # expect-error: sync.race
            smem_kc.cp_async(KV, coords=(kv0 + 64 * g, 0), iter=g)  # expect-error: sync.race
            lm.cp_async_commit()                    # cp_async_fence
            if g >= 2:                              # pipeline_offset == StagesPV - 1
                lm.cp_async_wait(pending=3)         # cp_async_wait<StagesPV - 1>: one short
                lm.fence_proxy()
                lm.arrive(full, iter=g - 2)         # producer_commit
        for d in lm.range(0, 2):                    # while (pipeline_offset > 0)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=3)
            lm.fence_proxy()
            lm.arrive(full, iter=n - 2 + d)
        lm.cp_async_wait(pending=0)

    with mma:
        for g in lm.range(0, n):
            lm.wait(full, iter=g)
            lm.mma(acc, smem_q[0], smem_kc[g], init=(g == 0))  # expect-error: sync.race
            lm.mma_commit(barrier=empty, iter=g)
        lm.mma_commit(barrier=acc_full, iter=0)

    with epi:
        q = 32 * lm.instance()
        lm.wait(acc_full, iter=0)
        for s in lm.range(0, 4):
            lm.tmem_load(r, acc[q:q + 32, 32 * s:32 * s + 32])
            lm.tmem_load_wait()
            lm.copy(O, r, coords=(m0 + q, 32 * s))
