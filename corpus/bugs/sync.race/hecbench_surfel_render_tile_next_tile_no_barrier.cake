# BUG (sync.race): ORNL/HeCBench issue #253 ("Shared memory race conditions
# in surfel-cuda at (surfel_render_tile kernel)", 2026-06-15; found with
# compute-sanitizer --tool=racecheck, 21 errors: 3 launches x 7 fields).
# src/surfel-cuda/main.cu, surfel_render_tile<T, TILE=256> (16x16 threads):
# every pixel thread walks the surfels in tiles of TILE staged in shared
# memory:
#     __shared__ T sh[TILE * COL_DIM];
#     for (int base = 0; base < N; base += TILE) {
#       if (tid < TILE && base + tid < N)
#         for (k < COL_DIM) sh[tid * COL_DIM + k] = s[(base + tid) * COL_DIM + k];
#       __syncthreads();
#       for (i < min(TILE, N - base)) { ... = sh[i * COL_DIM + ...]; ... }
#       // (BUG) no __syncthreads(): the next tile's load overwrites sh
#     }
# With N > TILE a fast thread stores surfel tid of the next tile over the
# entry a slower thread is still intersecting its ray with.  The fix is a
# __syncthreads() at the end of the tile loop.
# Modelled (scaled): four one-warp instances (256 threads in the source,
# 8 warps); warp w loads the 32 surfels w * 32 .. w * 32 + 31 of a tile
# (COL_DIM = 7 floats each) into slot sh[w]; __syncthreads() is a named
# barrier over the warps; every warp reads every slot; the tile count is
# lm.cdiv(N, 128).  Left out: the partial last tile (base + tid < N,
# tileCount) and the per-pixel bounds return (x >= w || y >= h).
# Fix: hecbench_surfel_render_tile_next_tile_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def hecbench_surfel_render_tile(lm, S: LM.gmem, D: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    pool = lm.smem(3584)
    sh   = pool.view(offset=0, shape=(1, 224), dtype=lm.f32, stages=4)
    surf = lm.regs(shape=(1, 224), dtype=lm.f32)
    hit  = lm.regs(shape=(1, 1), dtype=lm.f32)
    dmin = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.fill(dmin, 1.0e20)
        for b in lm.range(0, lm.cdiv(N, 128)):
            lm.copy(surf, S, coords=(0, 896 * b + 224 * w))
            lm.copy(sh[w], surf)                        # expect-error: sync.race
            lm.sync(block)
            for i in lm.range(0, 4):
                lm.copy(surf, sh[i])                    # the ray-surfel tests
                lm.reduce(hit, surf, op="min", axis=1)
                lm.binary(dmin, dmin, hit, op="min")
            # BUG: no __syncthreads() before the next tile's load
        lm.copy(D, dmin, coords=(0, w))
