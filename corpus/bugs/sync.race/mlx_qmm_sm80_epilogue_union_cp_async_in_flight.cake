# BUG (sync.race): MLX's CUDA quantized matmul qmm_sm80
# (mlx/backend/cuda/device/qmm_sm80.cuh, qmm_sm80_mainloop), as vendored by
# lablup/mlxcel and fixed there by PR #923 ("fix(cuda): drain cp.async
# before qmm_sm80 epilogue smem store (#910)", merged 2026-07-26; issue
# #910: temp-0 decode of every 4-bit model non-deterministic on GB10; the
# same two lines are in upstream MLX: "The last prefetches may still be
# landing in the buffers C reuses").  SharedStorage is a union of the
# mainloop's A (activations) and B (4-bit weights) stages, 3 of each, and
# the epilogue's C tile.  The mainloop prefetches with fetch_gmem (cp.async
# + commit) once per k-tile, clamping the tile index, so its last calls
# re-fetch the last k-tile; it waits only cp_async_wait<K_PIPE_MAX - 2>()
# (= 1) before each tile.  After the loop one commit group is still in
# flight, and other warps may still be reading the last stage, when the
# epilogue's copy(r2s_copy_c, ...) writes C over the same bytes ("a
# shared-memory write-write race"; the fix: cp_async_wait<0>();
# __syncthreads(); at the top of the epilogue).
# Modelled: a 64x128x64 CTA tile, 4 warps in a 2x2 MMA layout (each warp
# its own instance, warp w owns rows 32(w//2).. of A and 64(w%2).. of B);
# every thread cp.asyncs its own part of each stage (warp w: rows 16w..
# of A, 32w.. of B, through finer views, slot 4 * stage + w), waits its
# own groups and __syncthreads() publishes the stage.  B is 4-bit packed
# two per byte (i8, 32 bytes a row); its smem -> register copy converts to
# f16 (UniversalCopy + cute_vectorized_dequant; scales left out).  The
# per-k-tile micro blocks are folded into one step.  K is at least two
# k-tiles (the prologue fetches two).
# Fix: mlx_qmm_sm80_epilogue_union_cp_async_in_flight_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.async-at-exit
@cake.schedule(target="sm_80")
def mlx_qmm_sm80_epilogue_union_cp_async_in_flight(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 128)
    pool    = lm.smem(36864)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, stages=3)
    smem_b  = pool.view(offset=24576, shape=(128, 32), dtype=lm.i8,  stages=3)
    smem_aq = pool.view(offset=0,     shape=(16, 64),  dtype=lm.f16, stages=12)   # warp w's rows of A stage s: slot 4s + w
    smem_bq = pool.view(offset=24576, shape=(32, 32),  dtype=lm.i8,  stages=12)
    smem_c  = pool.view(offset=0,     shape=(64, 128), dtype=lm.f16, stages=1)    # SharedStorage::epilogue.C (the union)
    fa      = lm.regs(shape=(32, 64), dtype=lm.f16)
    fq      = lm.regs(shape=(64, 32), dtype=lm.i8)
    fb      = lm.regs(shape=(64, 64), dtype=lm.f16)
    acc     = lm.regs(shape=(32, 64), dtype=lm.f32)
    out     = lm.regs(shape=(32, 64), dtype=lm.f16)
    row     = lm.regs(shape=(16, 128), dtype=lm.f16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with warps:
        w  = lm.instance()
        wm = 32 * (w // 2)
        wn = 64 * (w % 2)
        for s in lm.range(0, 2):                                   # prefetch K_PIPE_MAX - 1 tiles
            smem_aq.cp_async(A, coords=(m_blk + 16 * w, s * 64), stage=4 * s + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, s * 32), stage=4 * s + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)                                # cp_async_wait<K_PIPE_MAX - 2>
        lm.sync(cta)
        for k in lm.range(0, k_tiles):
            t = min(k + 2, k_tiles - 1)                            # tile_pipe, clamped
            smem_aq.cp_async(A, coords=(m_blk + 16 * w, t * 64), stage=4 * ((k + 2) % 3) + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, t * 32), stage=4 * ((k + 2) % 3) + w)
            lm.cp_async_commit()
            lm.copy(fa, smem_a[k][wm:wm + 32, :])                  # ldmatrix A
            lm.copy(fq, smem_b[k][wn:wn + 64, :])                  # ld.shared of the packed weights
            lm.copy(fb, fq)                                        # dequant (4-bit -> f16)
            lm.mma(acc, fa, fb, init=(k == 0))
            lm.cp_async_wait(pending=1)
            lm.sync(cta)
        lm.copy(out, acc)
        # BUG: no cp_async_wait<0>(); __syncthreads(); before C reuses the union
        lm.copy(smem_c[0][wm:wm + 32, wn:wn + 64], out)            # expect-error: sync.race
        lm.sync(cta)
        lm.copy(row, smem_c[0][16 * w:16 * w + 16, :])            # s2g_copy_c
        lm.copy(C, row, coords=(m_blk + 16 * w, n_blk))
