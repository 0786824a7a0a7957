# mutant: fewer-stages
# original: corpus/kmeans/sm90_assign_resident_centroids.cake
# line: 14: smem_x = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
# change: stages: `3` -> `2`
# label: bad (sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), N in {1, 144, 272, 400, 656, 784}; block_idx 0 of grid_dim 1; 1976 states; first violation: sync.race: producer writes pool [32768, 49152) while its own TMA load (not landed yet) writes it at `smem_x.tma_load(X, coords=(p0, c * 64), iter=it, barrier=full)` (line 37) (N=400)
# expect-any: sync.race data.stale-read
# Hopper persistent k-means assignment with the centroids RESIDENT in shared
# memory (k = 128, D = 128: 128x128 bf16 = 32 KiB, loaded once as two
# 128x64 K-chunks on their own one-shot barrier slots) while point tiles
# stream through a 3-slot ring (each 128-point tile = 2 K-chunks:
# it = 2*t + c).  Two consumer warpgroups own 64 points each.  This is the
# structure that makes the assignment step bandwidth-bound on the points
# only (the paper's KMeans dispatcher family).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def kmeans_assign_resident(lm, X: LM.tma2d, Cn: LM.tma2d, CN: LM.gmem, Lab: LM.gmem, N: LM.i32):
    lm.assume(N > 0)
    pool   = lm.smem(81920)
    smem_c = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_x = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    dots   = lm.regs(shape=(64, 128), dtype=lm.f32)
    cn     = lm.regs(shape=(1, 128), dtype=lm.f32)
    lab    = lm.regs(shape=(64, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    c_full = lm.barrier(count=2, prod=[producer], cons=[consumers], init_count=1)
    pipe   = lm.pipeline(stages=3)
    full   = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    n_tiles  = lm.cdiv(N, 128)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for c in lm.range(0, 2):
            smem_c.tma_load(Cn, coords=(0, c * 64), stage=c, barrier=c_full)
        for t in lm.range(0, my_tiles):
            p0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for c in lm.range(0, 2):
                it = 2 * t + c
                lm.wait(empty, iter=it - 3)
                smem_x.tma_load(X, coords=(p0, c * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for c in lm.range(0, 2):
            lm.wait(c_full, stage=c)
        lm.copy(cn, CN, coords=(0, 0))
        for t in lm.range(0, my_tiles):
            p0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for c in lm.range(0, 2):
                it = 2 * t + c
                lm.wait(full, iter=it)
                lm.mma(dots, smem_x[it][m0:m0 + 64, :], smem_c[c], init=(c == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.binary(dots, dots, -2.0, op="mul")
            lm.binary(dots, dots, cn, op="add")
            lm.reduce(lab, dots, op="argmin", axis=1)
            lm.copy(Lab, lab, coords=(p0 + m0, 0))
