# mutant: wait-after-use
# original: corpus/basics/decorator_warps_cluster.cake
# line: 27: lm.wait(empty, iter=j - 2)
# change: moved `lm.wait(empty, iter=j - 2)` after `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)`
# label: bad (sync.arrival-overflow, sync.lost-phase, sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 79 states; first violation: sync.arrival-overflow: load arrives on full[0] after all 1 arrivals of its phase 0 came (it still waits for 32768 transaction bytes) at `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)` (line 27) (D=144)
# expect-any: sync.arrival-overflow sync.lost-phase sync.race data.stale-read proxy.missing-fence
# Decorator arguments: warps= fixes the block size (here 12 warps although
# the roles use warps 0 and 4..7 - the rest idle, as in kernels padded to a
# uniform launch shape) and cluster= launches 2x1x1 thread-block clusters.
# The schedule uses no cluster-scope operation, so every CTA of the cluster
# behaves as an independent block: a 2-stage TMA ring.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a", warps=12, cluster=(2, 1, 1))
def cluster_rowsum(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)
            lm.wait(empty, iter=j - 2)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
