# BUG (sync.race): the resident-centroid k-means kernel waits only for the
# first centroid chunk (c_full stage 0) before its first tile, but its
# second K step multiplies chunk 1 - whose TMA load may still be writing
# smem_c[1] while the wgmma reads it.  (Nobody ever waits for slot 1 of
# c_full, so that load is also never known complete before exit.)
# Models: kmeans/sm90_assign_resident_centroids.cake.
# Fix: kmeans/sm90_assign_resident_centroids.cake (wait both chunk slots).
# expect: sync.race
# may-also: data.stale-read sync.async-at-exit
@cake.schedule(target="sm_90a")
def kmeans_assign_half_waited(lm, X: LM.tma2d, Cn: LM.tma2d, CN: LM.gmem, Lab: LM.gmem, N: LM.i32):
    lm.assume(N > 0)
    pool   = lm.smem(81920)
    smem_c = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_x = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
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
            smem_c.tma_load(Cn, coords=(0, c * 64), stage=c, barrier=c_full)  # expect-error: sync.race
        for t in lm.range(0, my_tiles):
            p0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for c in lm.range(0, 2):
                it = 2 * t + c
                lm.wait(empty, iter=it - 3)
                smem_x.tma_load(X, coords=(p0, c * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.wait(c_full, stage=0)
        lm.copy(cn, CN, coords=(0, 0))
        for t in lm.range(0, my_tiles):
            p0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for c in lm.range(0, 2):
                it = 2 * t + c
                lm.wait(full, iter=it)
                lm.mma(dots, smem_x[it][m0:m0 + 64, :], smem_c[c], init=(c == 0))  # expect-error: sync.race
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.binary(dots, dots, -2.0, op="mul")
            lm.binary(dots, dots, cn, op="add")
            lm.reduce(lab, dots, op="argmin", axis=1)
            lm.copy(Lab, lab, coords=(p0 + m0, 0))
