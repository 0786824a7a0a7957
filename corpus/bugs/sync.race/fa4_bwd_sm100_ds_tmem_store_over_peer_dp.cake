# BUG (sync.race): Dao-AILab/flash-attention PR #2033
# "[Cute,Bwd,Sm100] enable deterministic mode for sm100 bwd and fix race
# conditions" (2025-11-24), item 2: "Sync compute warpgroup (not just sync
# warp) after fence_view_async_tmem_load in loop computing dS".  In the
# sm100 backward kernel (flash_attn/cute/flash_bwd_sm100.py) the eight
# compute warps (two warpgroups sharing every TMEM lane quarter, each
# owning one column half) load dP from TMEM (tcgen05.ld), wait for the
# load (fence_view_async_tmem_load = tcgen05.wait::ld), compute
# dS = P * (dP - dPsum), and store dS, bf16 packed two per 32-bit column
# (recast to Float32), back into TMEM over the dP columns (tcgen05.st)
# for the dK = dS^T Q MMA.  The packed dS of the second warpgroup lands on
# columns the first warpgroup's dP load still reads; only a sync_warp sat
# between the wait and the stores, so nothing ordered one warpgroup's
# stores after the other warpgroup's load.  Fix: a compute-wide named
# barrier (compute_sync_barrier.arrive_and_wait()) after the tmem-load
# fence, as the kernel already had for S -> P ("Without this barrier, we
# could have 1 warp writing to P in tmem while another warp is still
# reading S from tmem").
# Written in CAKE IR with the partial TMEM regions and asynchronous TMEM
# moves of docs/ir-extensions.md: a TMA load warp (2-stage ring of the
# dO and V tiles), an MMA warp that computes dP = dO V^T per m-block into
# one TMEM stage (dp_full / dp_empty), and the compute role as two
# 4-warp instances (the two warpgroups): instance g loads dP columns
# [64g, 64g + 64) and stores its packed dS (32 columns) at
# [32g, 32g + 32).  The packing (two bf16 per column) stands as a copy of
# half the fragment.  Left out: S/P, the LSE and dPsum pipelines, the dK
# MMA that reads dS from TMEM (a TMEM A operand is not in the IR), dQ.
# Fix: fa4_bwd_sm100_ds_tmem_store_over_peer_dp_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def fa4_bwd_sm100_ds_tmem_store_over_peer_dp(lm, dO: LM.tma2d, V: LM.tma2d, n_m: LM.i32):
    pool    = lm.smem(65536)
    smem_do = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    dp      = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    dp_r    = lm.regs(shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 32), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])

    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    dp_full  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dp_empty = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=2)

    n0 = lm.block_idx(0) * 128

    with load:
        for m in lm.range(0, n_m):
            lm.wait(empty, iter=m - 2)
            smem_do.tma_load(dO, coords=(m * 128, 0), iter=m, barrier=full)
            smem_v.tma_load(V, coords=(n0, 0), iter=m, barrier=full)

    with mma:
        for m in lm.range(0, n_m):
            lm.wait(full, iter=m)
            lm.wait(dp_empty, iter=m - 1)
            lm.mma(dp, smem_do[m], smem_v[m], init=True)
            lm.mma_commit(barrier=empty, iter=m)
            lm.mma_commit(barrier=dp_full, iter=m)

    with compute:
        g = lm.instance()
        for m in lm.range(0, n_m):
            lm.wait(dp_full, iter=m)
            lm.tmem_load(dp_r, dp[:, g * 64:g * 64 + 64])                       # expect-error: sync.race
            lm.tmem_load_wait()
            lm.binary(dp_r, dp_r, 0.5, op="mul")
            lm.copy(ds_r, dp_r[:, 0:32])
            lm.tmem_store(dp[:, g * 32:g * 32 + 32], ds_r)                      # expect-error: sync.race
            lm.tmem_store_wait()
            lm.arrive(dp_empty, iter=m)
