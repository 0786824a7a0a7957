# BUG (sync.race): NVIDIA/cutlass PR #386 ("Added missing synchronization to
# avoid WAR hazards between tiles in Grouped GEMM"; compute-sanitizer
# racecheck reports zero errors after it).  include/cutlass/gemm/kernel/
# gemm_grouped.h runs a persistent loop over the tiles of all problems
# (`while (problem_visitor.next_tile())`): the multistage mainloop
# (cp.async into shared_storage.main_loop), then the epilogue through
# shared_storage.epilogue - a union with main_loop, so the epilogue's
# staging tile lies on the A/B stages.  Each warp writes its accumulator
# fragment into the staging tile, the epilogue syncs, and every warp reads
# back rows that the other warps wrote.  A warp that finishes its tile then
# starts the next tile's mainloop prologue and cp.asyncs A/B into the same
# bytes while a lagging warp still reads the previous tile's staging rows.
# Fix (gemm_grouped.h and every kernel copied from it since): before the
# mainloop, "// Wait for all threads to finish their epilogue phases from
# the previous tile.  __syncthreads();"
# (cutlass_grouped_gemm_next_tile_prologue_over_epilogue_fixed.cake).
# Written in CAKE IR: sm_80, a 64x64x32 tile, 2 stages, 4 warps each its own
# instance (__syncthreads is a named barrier over them).  Warp w cp.asyncs
# rows [16 w, 16 w + 16) of the A and B stages (views a_band / b_band over
# smem_a / smem_b), computes the 64x16 column band w of the tile with
# mma.sync, and in the epilogue writes that column band of the staging tile
# `epi` (64x64 f32 over the whole 16 KB, the union) and reads back row band
# w.  The grouped problem visitor is a persistent tile loop over one
# problem with N = 64 (tile = blockIdx.x + t * gridDim.x); the mainloop's
# end (cp_async_wait<0>; __syncthreads) and the epilogue's single step are
# as in MmaMultistage / EpilogueWithSharedStorage, with fewer steps.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cutlass_grouped_gemm_next_tile_prologue_over_epilogue(lm, A: LM.gmem, B: LM.gmem, D: LM.gmem,
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
            # BUG: no __syncthreads() before the mainloop
            a_band.cp_async(A, coords=(m0 + 16 * w, 0), stage=w)                      # expect-error: sync.race
            b_band.cp_async(B, coords=(16 * w, 0), stage=w)                           # expect-error: sync.race
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
            lm.copy(out, epi[0][16 * w:16 * w + 16, :])                               # expect-error: sync.race
            lm.copy(D, out, coords=(m0 + 16 * w, 0))
