# Variant for timing: corpus/kmeans/sm90_assign_streamed_centroids.cake with
# the warpgroups' wgmma issue ordered (ping-pong). Hopper k-means assignment for many clusters (K a multiple of 128, D = 128),
# persistent over 256-point tiles of all batches, one launch.
#  * the points stay resident: each tile's 256x128 block is two 256x64
#    K-chunks, double-buffered (x ring of 4 slots, iteration 2*t + c), loaded
#    while the tile before it is still computing (at its last centroid step);
#  * the centroids stream through a 4-slot ring of 128x64 chunks (iteration
#    2*s + c for global centroid step s = t*kt + j: 2 centroid tiles ahead),
#    their 128 norms with the first chunk (TMA, one smem_n slot per step:
#    plain shared loads, no per-element bounds checks of a global copy);
#  * two consumer warpgroups own 128 points each: per step a 128x128 wgmma
#    into registers, then dist = ||c||^2 - 2 x.c and a running argmin across
#    the centroid tiles (reduce value=/base=), no distance matrix in memory;
#  * ping-pong: the warpgroups take turns issuing their step's wgmma through
#    an ordering barrier (slot i = "warpgroup i may issue"), so one
#    warpgroup's argmin overlaps the other's tensor-core work.
# smem: 4 x 32 KiB points + 4 x 16 KiB centroids + 4 x 512 B norms = 194 KiB.
@cake.schedule(target="sm_90a")
def kmeans_assign_pingpong(lm, X: LM.tma3d, Cn: LM.tma3d, CN: LM.tma3d, Lab: LM.gmem,
                           N: LM.i32, K: LM.i32, D: LM.i32, B: LM.i32):
    # bounds that keep the tile arithmetic (B * cdiv(N, 256) tiles) far inside
    # int32, and the model checker's choice of values quick
    lm.assume(N > 0)
    lm.assume(N <= 16777216)
    lm.assume(K > 0)
    lm.assume(K % 128 == 0)
    lm.assume(D == 128)
    lm.assume(B > 0)
    lm.assume(B <= 1024)
    pool   = lm.smem(198656)
    smem_x = pool.view(offset=0,      shape=(256, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_n = pool.view(offset=196608, shape=(1, 128), dtype=lm.f32, stages=4)
    dots = lm.regs(shape=(128, 128), dtype=lm.f32)
    cn   = lm.regs(shape=(1, 128), dtype=lm.f32)
    best = lm.regs(shape=(128, 1), dtype=lm.f32)
    lab  = lm.regs(shape=(128, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    xp      = lm.pipeline(stages=4)
    x_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=xp)
    x_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=xp)
    cp      = lm.pipeline(stages=4)
    c_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=cp)
    c_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=cp)
    order   = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    kt       = K // 128
    per_b    = lm.cdiv(N, 256)
    my_tiles = lm.cdiv(max(B * per_b - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            if t == 0:
                for c in lm.range(0, 2):
                    smem_x.tma_load(X, coords=(tile // per_b, (tile % per_b) * 256, c * 64), iter=c, barrier=x_full)
            for j in lm.range(0, kt):
                s = t * kt + j
                lm.wait(c_empty, iter=2 * s - 4)
                smem_c.tma_load(Cn, coords=(tile // per_b, j * 128, 0), iter=2 * s, barrier=c_full)
                smem_n.tma_load(CN, coords=(tile // per_b, 0, j * 128), iter=2 * s, barrier=c_full)
                lm.wait(c_empty, iter=2 * s - 3)
                smem_c.tma_load(Cn, coords=(tile // per_b, j * 128, 64), iter=2 * s + 1, barrier=c_full)
            # the next tile's points, while this tile's last steps compute
            if t + 1 < my_tiles:
                nxt = tile + lm.grid_dim(0)
                for c in lm.range(0, 2):
                    lm.wait(x_empty, iter=2 * t + 2 + c - 4)
                    smem_x.tma_load(X, coords=(nxt // per_b, (nxt % per_b) * 256, c * 64), iter=2 * t + 2 + c,
                                    barrier=x_full)

    with consumers:
        m0 = 128 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for c in lm.range(0, 2):
                lm.wait(x_full, iter=2 * t + c)
            lm.fill(best, 3.0e38)
            lm.fill(lab, 0)
            for j in lm.range(0, kt):
                s = t * kt + j
                if s + lm.instance() > 0:
                    lm.wait(order, stage=lm.instance())
                for c in lm.range(0, 2):
                    lm.wait(c_full, iter=2 * s + c)
                    lm.mma(dots, smem_x[2 * t + c][m0:m0 + 128, :], smem_c[2 * s + c], init=(c == 0))
                lm.mma_commit()
                lm.arrive(order, stage=1 - lm.instance())
                # the norms (landed with the centroids) load while the tensor cores work
                lm.copy(cn, smem_n[2 * s])
                lm.mma_wait(pending=0)
                # the norms were read through the generic proxy; the next TMA writes the slot
                lm.fence_proxy()
                for c in lm.range(0, 2):
                    lm.arrive(c_empty, iter=2 * s + c)
                lm.binary(dots, dots, -2.0, op="mul")
                lm.binary(dots, dots, cn, op="add")
                lm.reduce(lab, dots, op="argmin", axis=1, value=best, base=j * 128)
            for c in lm.range(0, 2):
                lm.arrive(x_empty, iter=2 * t + c)
            lm.copy(Lab, lab, coords=(tile // per_b, (tile % per_b) * 256 + m0, 0))
