# BUG (sync.race): pytorch/helion PR #3621 ("[cutedsl] flash-bwd:
# fix the persistent tile-scheduler deadlock and two cross-tile races",
# 2026-09-14).  Helion's CuTe DSL flash-attention backward, persistent
# over KV tiles: per step (a Q block of the KV tile) the compute warps
# write dS to shared memory and arrive on `ds_full`, and the MMA warp
# waits `ds_full` with its own parity variable fbwd_dsf_phase before the
# dK / dQ MMAs that read dS.  The MMA warp's step loop is peeled: its tail
# ds_full wait (the KV tile's last step) never toggled fbwd_dsf_phase, so
# every tile did `steps` waits but `steps - 1` toggles and the parity is
# inverted on the CTA's second tile: the MMA's first wait there passes on
# the phase the previous tile's tail completed and reads dS the compute
# warps have not written yet (or, a tile later, blocks forever: the hang
# reproduced with 2 tiles per CTA, confirmed with cuda-gdb).  The fix
# toggles the phase after the tail wait too.  (The PR's two other fixes,
# the LSE / Delta staging parity restarted per tile and the skipped tail
# dq_empty wait of 1-step tiles, are not modelled.)
# Modelled: the MMA warp's parity as the explicit phase number it stands
# for (IR.md: lowering derives the parity), `t * (steps - 1) + j` after
# the toggles of t tiles of `steps - 1` each; ds_full / ds_empty one-slot
# barriers, dS one shared slot; the compute warps 0-3 (one instance) also
# read dK out of TMEM at each tile's end; the load warp 5 brings the step's
# Q block through a 2-stage TMA ring; dK accumulates in TMEM over the
# tile's steps (tcgen05, MMA warp 4).  Left out: dQ, P / dP (the compute
# warps' dS stands for softmax(QK^T) * (dP - Delta)), dV.
# Fix: helion_flash_bwd_mma_tail_ds_full_no_toggle_fixed.cake.
# What cake reports: the MMA's wait means phase t * (steps - 1) + j, which
# HAS completed (the phase before the one it needs), so the wait is no
# stale-phase in the sense of docs/corpus.md decision 7 (it passes as its
# annotation says); the harm is the dS read racing the compute warps'
# write (sync.race, plus data.stale-read), or, a phase further behind,
# sync.lost-phase.
# expect: sync.race
# may-also: data.stale-read sync.lost-phase sync.deadlock sync.stale-phase sync.arrival-overflow
@cake.schedule(target="sm_100a")
def helion_flash_bwd_mma_tail_ds_full_no_toggle(lm, Q: LM.tma2d, DK: LM.gmem, n_tiles: LM.i32, steps: LM.i32):
    lm.assume(steps >= 1)
    pool    = lm.smem(32768)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")    # Q^T of the step
    smem_ds = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")             # dS^T of the step
    tmem_dk = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dk_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    q_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dk_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dk_empty = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                it = t * steps + j
                lm.wait(q_empty, iter=it - 2)
                smem_q.tma_load(Q, coords=(0, 64 * j), iter=it, barrier=q_full)

    with mma:
        for t in lm.range(0, n_tiles):
            base = t * (steps - 1)                        # BUG: fbwd_dsf_phase toggled steps - 1 times per tile
            lm.wait(dk_empty, iter=t - 1)
            for j in lm.range(0, steps - 1):
                it = t * steps + j
                lm.wait(q_full, iter=it)
                lm.wait(ds_full, stage=0, phase=base + j)
                lm.mma(tmem_dk, smem_ds[it], smem_q[it], init=(j == 0))       # expect-error: sync.race
                lm.mma_commit(barrier=q_empty, iter=it)
                lm.mma_commit(barrier=ds_empty, iter=it)
            # the peeled tail step: waits, but does not toggle the phase
            it = t * steps + steps - 1
            lm.wait(q_full, iter=it)
            lm.wait(ds_full, stage=0, phase=base + steps - 1)
            lm.mma(tmem_dk, smem_ds[it], smem_q[it], init=(steps == 1))   # expect-error: sync.race
            lm.mma_commit(barrier=q_empty, iter=it)
            lm.mma_commit(barrier=ds_empty, iter=it)
            lm.mma_commit(barrier=dk_full, iter=t)

    with compute:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                it = t * steps + j
                lm.fill(ds_r, 0.5)                        # dS = P * (dP - Delta)
                lm.wait(ds_empty, iter=it - 1)
                lm.copy(smem_ds[it], ds_r)                                    # expect-error: sync.race
                lm.fence_proxy()
                lm.arrive(ds_full, iter=it)
            lm.wait(dk_full, iter=t)
            lm.tmem_load(dk_r, tmem_dk)
            lm.tmem_load_wait()
            lm.arrive(dk_empty, iter=t)
            lm.copy(DK, dk_r, coords=(128 * (lm.block_idx(0) + t * lm.grid_dim(0)), 0))
