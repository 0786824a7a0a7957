# FIXED: cutlass_grouped_gemm_next_tile_prologue_over_epilogue.cake as
# NVIDIA/cutlass PR #386 fixes it: a __syncthreads() at the top of every
# tile of the persistent grouped loop ("Wait for all threads to finish
# their epilogue phases from the previous tile."), so no warp's next-tile
# cp.async overwrites staging rows another warp still reads.
# expect: pass
@cake.schedule(target="sm_80")
def cutlass_grouped_gemm_sync_before_mainloop(lm, A: LM.gmem, B: LM.gmem, D: LM.gmem,
                                                 n_tiles: LM.i32, K: LM.i32):
    lm.assume(K >= 32)
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16, stages=2)
    a_band = pool.view(offset=0,    shape=(16, 32), dtype=lm.f16, stages=8)
    smem_b = pool.view(offset=8192, shape=(64, 32), dtype=lm.f16, stages=2)
    b_band = pool.view(offset=8192, shape=(16, 32), dtype=lm.f16, stages=8)
    epi    = pool.view(offset=0,    shape=(64, 64), dtype=lm.f32, stages=1)   # shared_storage.epilogue
    acc    = lm.regs(shape=(64, 16), dtype=lm.f32)
    out    = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 32)

    with warps:
        w = lm.instance()
        for t in lm.range(0, n_tiles):
            m0 = 64 * (lm.block_idx(0) + t * lm.grid_dim(0))
            # Wait for all threads to finish their epilogue phases from the previous tile.
            lm.sync(bar)
            a_band.cp_async(A, coords=(m0 + 16 * w, 0), stage=w)
            b_band.cp_async(B, coords=(16 * w, 0), stage=w)
            lm.cp_async_commit()
            for k in lm.range(0, k_tiles):
                lm.cp_async_wait(pending=0)
                lm.sync(bar)
                if k + 1 < k_tiles:
                    a_band.cp_async(A, coords=(m0 + 16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)
                    b_band.cp_async(B, coords=(16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)
                lm.cp_async_commit()
                lm.mma(acc, smem_a[k % 2], smem_b[k % 2][16 * w:16 * w + 16, :], init=(k == 0))
            lm.cp_async_wait(pending=0)
            lm.sync(bar)
            # epilogue: fragments -> staging tile -> rows -> global
            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)
            lm.sync(bar)
            lm.copy(out, epi[0][16 * w:16 * w + 16, :])
            lm.copy(D, out, coords=(m0 + 16 * w, 0))
