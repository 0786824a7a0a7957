# BUG (sync.race): pytorch/helion PR #3621 ("[cutedsl] flash-bwd:
# fix the persistent tile-scheduler deadlock and two cross-tile races",
# 2026-09-14), its third fix: "the head_dim-64 tail dq_empty wait was
# skipped for 1-step tiles".  Helion's CuTe DSL flash-attention backward
# (1-CTA, persistent over KV tiles).  With head_dim 64, dQ has its own TMEM
# columns: the MMA warp (12) writes dQ of every step with a tcgen05 MMA and
# commits `dq_full`; the reduce warps 0-3 wait `dq_full`, read dQ out of TMEM
# (tcgen05.ld), arrive on `dq_empty` (count 128) and reduce-add it into the
# global fp32 dQ.  The MMA warp must wait `dq_empty` before every dQ MMA but
# the kernel's first.  Its step loop is software-skewed and peeled: the loop
# body issues dQ of steps 0 .. steps-2 (waiting when `(i > 0) | (tile_it >
# 0)`), the tail issues dQ of the last step and waited only `if fbwd_steps >
# 1`.  A tile with one step after the CTA's first tile (a 128-row Q, or the
# last KV tile of a causal row) skips the loop, and its tail dQ MMA
# overwrites the TMEM dQ the reduce warps are still reading for the
# previous tile.  The fix (the stored CuTe DSL code generator's
# `tail_cond = "(fbwd_steps > 1) | (fbwd_tile_it > 0)" if persistent`)
# waits there too.
# Pre-fix and fixed generator text both stored (the `dq_empty_wait_tail`
# string: `if fbwd_steps > 1:` before, `if (fbwd_steps > 1) | (fbwd_tile_it
# > 0):` after).
# Modelled: non-causal, so every KV tile has the same `steps` (m_tiles -
# m_start); the MMA warp's dq_empty parity as the phase number it stands
# for: before the dQ MMA of global step e it has waited e - 1 times
# (iter=e-1, a negative iteration passes: the kernel's first dQ); dS is one
# shared slot the compute warpgroup writes per step (ds_full / ds_empty), K
# one slot the load warp brings per tile (k_full / k_empty); dQ = dS K.
# Left out: S, dP, P, dK, dV, the Q / dO rings, the smem staging of the dQ
# reduce-add (stood for by a plain global store), the CLC scheduler warps.
# Fix: helion_flash_bwd_d64_tail_dq_empty_wait_skipped_fixed.cake.
# expect: sync.race
# may-also: data.discarded-product sync.lost-phase sync.arrival-overflow sync.deadlock sync.stale-phase data.stale-read
# RESPELLED: the MMA warp's dq_empty waits name the slot only (`stage=0`,
# no phase): the phase is the number of this instance's earlier waits on
# the slot, which is what the kernel's fbwd_dqe_phase bit flipped after
# each wait stands for, so a skipped wait also leaves the phase behind;
# the reduce warps arrive by slot too.
@cake.schedule(target="sm_100a")
def helion_flash_bwd_d64_tail_dq_empty_wait_skipped_respelled(lm, K: LM.tma2d, DQ: LM.gmem, n_tiles: LM.i32, steps: LM.i32):
    lm.assume(steps >= 1)
    pool    = lm.smem(32768)
    smem_kt = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, swizzle="128B")    # K^T of the KV tile
    smem_ds = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")   # dS of the step
    tmem_dq = lm.tmem(cols=384, width=64, shape=(128, 64), dtype=lm.f32)                 # D=64: dQ's own columns
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dq_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    reduce  = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    mma     = lm.role(warps=[12])
    load    = lm.role(warps=[13])

    k_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_empty  = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dq_full  = lm.barrier(count=1, prod=[mma], cons=[reduce], init_count=1)
    dq_empty = lm.barrier(count=1, prod=[reduce], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=t - 1)
            smem_kt.tma_load(K, coords=(0, 64 * (lm.block_idx(0) + t * lm.grid_dim(0))), iter=t, barrier=k_full)
        lm.wait(k_empty, iter=n_tiles - 1)                # producer tail: the last K release

    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(k_full, iter=t)
            for j in lm.range(0, steps - 1):
                e = t * steps + j
                lm.wait(ds_full, iter=e)
                if (j > 0) or (t > 0):                     # (i > 0) | (tile_it > 0)
                    lm.wait(dq_empty, stage=0)              # fbwd_dqe_phase, flipped after each wait
                lm.mma(tmem_dq, smem_ds[e], smem_kt[t], init=True)
                lm.mma_commit(barrier=ds_empty, iter=e)
                lm.mma_commit(barrier=dq_full, iter=e)
            # tail: dQ of the tile's last step
            e = t * steps + steps - 1
            lm.wait(ds_full, iter=e)
            if steps > 1:                                # BUG: skipped for a 1-step tile after the first
                lm.wait(dq_empty, stage=0)
            lm.mma(tmem_dq, smem_ds[e], smem_kt[t], init=True)   # expect-error: sync.race
            lm.mma_commit(barrier=ds_empty, iter=e)
            lm.mma_commit(barrier=dq_full, iter=e)
            lm.mma_commit(barrier=k_empty, iter=t)

    with compute:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.fill(ds_r, 0.5)                       # dS = P * (dP - Delta)
                lm.wait(ds_empty, iter=e - 1)
                lm.copy(smem_ds[e], ds_r)
                lm.fence_proxy()
                lm.arrive(ds_full, iter=e)

    with reduce:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.wait(dq_full, iter=e)
                lm.tmem_load(dq_r, tmem_dq)                                  # expect-error: sync.race
                lm.tmem_load_wait()
                lm.arrive(dq_empty, stage=0)
                lm.copy(DQ, dq_r, coords=(128 * j, 0))
