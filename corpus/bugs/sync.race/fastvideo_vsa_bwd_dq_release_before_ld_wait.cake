# BUG (sync.race): hao-ai-lab/FastVideo PR #1819 ("[kernel] sm_100a CUDA
# backward for VSA block-sparse attention (blk64)", merged 2026-09-05;
# review follow-up of 2026-09-06 by SolitaryThinker, "Point 2 (`d2c9d61`,
# drop `tcgen05.wait::ld`): confirmed").  Commit d2c9d61 of the PR dropped
# the `tcgen05.wait::ld` after the epilogue's TMEM loads.  ptxas
# scoreboards every register consumer of an LDTM, so three of the four
# sites stayed safe, but in the dQ epilogue the `mbarrier.arrive` on
# `empty_bar_dq` is not a register consumer: the SASS shows two
# `LDTM.x64` of `tmem_dq`, then the arrive that releases `tmem_dq` to the
# MMA warp with an empty wait mask, and only then the first STS of the
# loaded registers.  The MMA warp's next dS^T K product can overwrite the
# TMEM columns the loads are still reading.  The fix restores the
# `tcgen05.wait::ld` before the arrive.
# Modelled: one CTA per kv block; a TMA warp loads K^T once and the dS
# tiles of the selected q blocks through a 2-stage ring; the MMA warp
# multiplies each dS tile by K into the fp32 `tmem_dq` accumulator and
# commits to the stage's empty barrier and to dq_full; four epilogue warps
# (one instance per warp, each owning its TMEM lane quarter) load their
# quarter in two 64-column halves (the two LDTM.x64), arrive on dq_empty,
# then store the registers to shared memory and reduce them out (the
# st.shared and the global add stand in for the fp32 dQ partial
# reduce-add).  Left out: the dK/dV pipelines, P^T, masking.
# Fix: fastvideo_vsa_bwd_dq_release_before_ld_wait_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def fastvideo_vsa_bwd_dq_release_before_ld_wait(lm, DS: LM.tma2d, KT: LM.tma2d, DQacc: LM.gmem,
                                                n_q: LM.i32):
    lm.assume(n_q > 0)
    pool  = lm.smem(147456)
    kt_s  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    ds_s  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    dq_s  = pool.view(offset=81920, shape=(32, 128), dtype=lm.f32, stages=4)
    tmem_dq = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    dq_lo = lm.regs(shape=(32, 64), dtype=lm.f32)
    dq_hi = lm.regs(shape=(32, 64), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7], group=1)

    kt_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    ds_full  = lm.barrier(count=2, prod=[load], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=2, prod=[mma], cons=[load], init_count=1)
    dq_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    dq_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=4)

    with load:
        kt_s.tma_load(KT, coords=(0, 64 * lm.block_idx(0)), stage=0, barrier=kt_full)
        for j in lm.range(0, n_q):
            lm.wait(ds_empty, iter=j - 2)
            ds_s.tma_load(DS, coords=(128 * j, 64 * lm.block_idx(0)), iter=j, barrier=ds_full)

    with mma:
        lm.wait(kt_full, stage=0)
        for j in lm.range(0, n_q):
            lm.wait(ds_full, iter=j)
            lm.wait(dq_empty, iter=j - 1)
            lm.mma(tmem_dq, ds_s[j], kt_s[0], init=True)                  # expect-error: sync.race
            lm.mma_commit(barrier=ds_empty, iter=j)
            lm.mma_commit(barrier=dq_full, iter=j)

    with epi:
        q = 32 * lm.instance()
        for j in lm.range(0, n_q):
            lm.wait(dq_full, iter=j)
            lm.tmem_load(dq_lo, tmem_dq[q:q + 32, 0:64])                  # expect-error: sync.race
            lm.tmem_load(dq_hi, tmem_dq[q:q + 32, 64:128])
            # BUG: no lm.tmem_load_wait() before the release
            lm.arrive(dq_empty, iter=j)
            lm.tmem_load_wait()
            lm.copy(dq_s[lm.instance()][:, 0:64], dq_lo)
            lm.copy(dq_s[lm.instance()][:, 64:128], dq_hi)
            lm.copy(dq_lo, dq_s[lm.instance()][:, 0:64])
            lm.copy(dq_hi, dq_s[lm.instance()][:, 64:128])
            lm.copy(DQacc, dq_lo, coords=(128 * j + q, 0))
            lm.copy(DQacc, dq_hi, coords=(128 * j + q, 64))
