# mutant: release-late
# original: corpus/kmeans/sm100_assign_k128_tcgen05.cake
# line: 58: lm.arrive(acc_empty, iter=t)
# change: moved `lm.arrive(acc_empty, iter=t)` after `lm.binary(dots, dots, -2.0, op="mul")`
# label: benign: no violation under exhaustive exploration with N in {1, 144, 272, 400, 528, 1040}, D in {1, 80, 144, 208, 272, 528} (36 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 12645 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Blackwell k-means assignment (k = 128): TMA warp, tcgen05 MMA warp into a
# 128x128 TMEM accumulator, epilogue warpgroup reads it (tcgen05.ld),
# forms ||c||^2 - 2 x.c and takes the argmin per point.  Persistent over
# point tiles with a one-slot accumulator pipeline (acc_full / acc_empty).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def kmeans_assign_sm100(lm, X: LM.tma2d, Cn: LM.tma2d, CN: LM.gmem, Lab: LM.gmem,
                        N: LM.i32, D: LM.i32):
    lm.assume(N > 0)
    lm.assume(D > 0)
    pool     = lm.smem(131072)
    smem_x   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    dots     = lm.regs(shape=(128, 128), dtype=lm.f32)
    cn       = lm.regs(shape=(1, 128), dtype=lm.f32)
    lab      = lm.regs(shape=(128, 1), dtype=lm.i32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=4)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    d_tiles  = lm.cdiv(D, 64)
    n_tiles  = lm.cdiv(N, 128)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            p0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for k in lm.range(0, d_tiles):
                it = t * d_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_x.tma_load(X, coords=(p0, k * 64), iter=it, barrier=full)
                smem_c.tma_load(Cn, coords=(0, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, my_tiles):
            lm.wait(acc_empty, iter=t - 1)
            for k in lm.range(0, d_tiles):
                it = t * d_tiles + k
                lm.wait(full, iter=it)
                lm.mma(tmem_acc, smem_x[it], smem_c[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        lm.copy(cn, CN, coords=(0, 0))
        for t in lm.range(0, my_tiles):
            p0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(acc_full, iter=t)
            lm.copy(dots, tmem_acc)
            lm.binary(dots, dots, -2.0, op="mul")
            lm.arrive(acc_empty, iter=t)
            lm.binary(dots, dots, cn, op="add")
            lm.reduce(lab, dots, op="argmin", axis=1)
            lm.copy(Lab, lab, coords=(p0, 0))
