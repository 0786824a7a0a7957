# mutant: release-early
# original: corpus/kmeans/sm90_centroid_norms.cake
# line: 33: lm.arrive(empty, iter=k)
# change: moved `lm.copy(c, smem_c[k])` after `lm.arrive(empty, iter=k)`
# label: bad (sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 81 states; first violation: sync.race: load's TMA load (not landed yet) writes smem_c[0] bytes [0, 16384) while wg's lm.copy reads them at `smem_c.tma_load(Cn, coords=(c0, k * 64), iter=k, barrier=full)` (line 26) (D=144)
# expect-any: sync.race data.stale-read proxy.missing-fence
# Hopper k-means helper: squared norms of the k centroids (||c_j||^2), the
# bias term of the assignment kernels.  One warpgroup per 128 centroids,
# TMA-loads the D/64 chunks into a 2-slot ring from a single TMA warp.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def centroid_norms(lm, Cn: LM.tma2d, CN: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_c = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    c      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    norm   = lm.regs(shape=(128, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    c0 = lm.block_idx(0) * 128

    with load:
        for k in lm.range(0, d_tiles):
            lm.wait(empty, iter=k - 2)
            smem_c.tma_load(Cn, coords=(c0, k * 64), iter=k, barrier=full)

    with wg:
        lm.fill(norm, 0.0)
        for k in lm.range(0, d_tiles):
            lm.wait(full, iter=k)
            lm.arrive(empty, iter=k)
            lm.copy(c, smem_c[k])
            lm.binary(c, c, c, op="mul")
            lm.reduce(part, c, op="sum", axis=1)
            lm.binary(norm, norm, part, op="add")
        lm.copy(CN, norm, coords=(c0, 0))
