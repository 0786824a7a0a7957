# BUG (sync.grid-dependency): Dao-AILab/quack issue #206 ("[SM100] Missing
# PDL waits before grouped GEMM metadata reads", 2026-09-16; fix proposed
# in quack PR #207, worked around by marin-community/marin PR #9183, which
# launches the QuACK grouped GEMMs without PDL).  quack/gemm_sm100.py,
# variable-length (varlen_m) grouped GEMM launched with programmatic
# dependent launch: the AB-load warp and the CLC scheduler warp call
# griddepcontrol_wait() before they decode their first tile, but the MMA
# warp and the epilogue warps construct the tile scheduler and decode
# initial_work_tile_info() - which reads the expert group boundaries
# cu_seqlens_m from global memory - with no wait and before any barrier
# that the waiting warps release.  When the preceding kernel writes
# cu_seqlens_m, the MMA and epilogue warps can decode their tile from stale
# boundaries while the load warp uses the new ones (GPU dumps of the
# hanging GB200 runs: the MMA and epilogue warps retired on a tile the
# load and scheduler warps still held as valid; the load warp then blocks
# on the A/B pipeline).  PR #207 adds griddepcontrol_wait() to the MMA and
# epilogue warps before their tile decoding.
# Modelled: one 128x128 output tile per CTA (block_idx(2) the expert), the
# CUTLASS-style sm100 warp roles (epilogue warps 0-3 one instance, MMA warp
# 4, AB-load warp 5, scheduler warp 6), a 4-stage A/B TMA ring, tcgen05 MMA
# into TMEM and a TMA-stored epilogue; cu_seqlens_m and A (the permuted
# activations) are what the preceding grid writes (lm.grid_dependency).
# The decode is the read of this expert's two cu_seqlens_m entries; the
# row offset it yields is data, so the coordinates use block indices.
# Left out: the 2x2 cluster and the CLC persistent loop (later tiles reach
# the MMA and epilogue warps through the scheduler's pipeline, after its
# wait; the bug is the first tile), gather_A.
# Fix: quack_sm100_varlen_mma_epi_decode_before_pdl_wait_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_100a")
def quack_sm100_varlen_mma_epi_decode_before_pdl_wait(lm, A: LM.tma2d, B: LM.tma3d, D: LM.tma2d,
                                                     CuSeqlens: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(A)
    lm.grid_dependency(CuSeqlens)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_d   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)
    seg      = lm.regs(shape=(1, 2), dtype=lm.i32)        # cu_seqlens_m[g], cu_seqlens_m[g + 1]

    epi   = lm.role(warps=[0, 1, 2, 3])
    mma   = lm.role(warps=[4])
    load  = lm.role(warps=[5])
    sched = lm.role(warps=[6])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    g     = lm.block_idx(2)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with sched:
        lm.grid_dep_wait()
        lm.copy(seg, CuSeqlens, coords=(0, g))           # decodes the first tile for the CLC pipeline

    with load:
        lm.grid_dep_wait()
        lm.copy(seg, CuSeqlens, coords=(0, g))
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(g, n_blk, k * 64), iter=k, barrier=full)

    with mma:
        # BUG: no griddepcontrol_wait() before initial_work_tile_info()
        lm.copy(seg, CuSeqlens, coords=(0, g))           # expect-error: sync.grid-dependency
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        # BUG: no griddepcontrol_wait() before initial_work_tile_info()
        lm.copy(seg, CuSeqlens, coords=(0, g))           # expect-error: sync.grid-dependency
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_d[0], acc_r)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
