# mutant: guard-minus-1
# original: corpus/knn/sm100_distance_double_tmem.cake
# line: 61: if t % 2 == 0:
# change: guard: `0` -> `-1`
# label: bad (data.uninitialized) by the explicit-state simulator (encoder/simulator.h), Nq in {1, 144, 272, 400, 784}, Ndb in {1, 144, 272, 400, 784}, D in {1, 80, 144, 208, 400} (60 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 6782 states; first violation: data.uninitialized: epi's lm.copy reads TMEM tmem_acc0 element (0, 0), which no op of the CTA writes with a defined value for these parameter values (no MMA into it with init= true, no tcgen05.st or copy runs): tcgen05.alloc does not clear tensor memory, so it reads undefined values at `lm.copy(d, tmem_acc0[:, h * 64:h * 64 + 64])` (line 76) (Nq=400, Ndb=1, D=208)
# expect-any: data.uninitialized
# Blackwell persistent distance-matrix kernel with a DOUBLE-BUFFERED TMEM
# accumulator (CUTLASS sm100 AccumulatorPipeline with 2 stages): the MMA
# warp fills tile t into tmem_acc0 / tmem_acc1 (t % 2) while the epilogue
# warpgroup drains tile t-1 from the other buffer.
#  * acc_full / acc_empty have 2 slots, one per TMEM buffer: slot t%2,
#    phase t//2 (iter=t).  The MMA warp waits acc_empty iter=t-2 before
#    overwriting buffer t%2 (first two tiles pass at once).
#  * epilogue: D2 = ||x||^2 - 2 q.x (query norms added by the consumer of
#    the matrix), two 64-column sub-tiles per tile through a 2-slot f32
#    TMA store ring.
# TMEM: [0,128) and [128,256).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def distance_double_tmem(lm, Q: LM.tma2d, Xdb: LM.tma2d, XN: LM.gmem, D2: LM.tma2d,
                         Nq: LM.i32, Ndb: LM.i32, D: LM.i32):
    lm.assume(Nq > 0)
    lm.assume(Ndb > 0)
    lm.assume(D > 0)
    pool      = lm.smem(163840)
    smem_q    = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_x    = pool.view(offset=49152,  shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_d    = pool.view(offset=98304,  shape=(128, 64), dtype=lm.f32,  stages=2)
    tmem_acc0 = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_acc1 = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    d         = lm.regs(shape=(128, 64), dtype=lm.f32)
    xn        = lm.regs(shape=(1, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=3)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    accp      = lm.pipeline(stages=2)
    acc_full  = lm.barrier(prod=[mma], cons=[epi], init_count=1, pipeline=accp)
    acc_empty = lm.barrier(prod=[epi], cons=[mma], init_count=1, pipeline=accp)

    d_tiles  = lm.cdiv(D, 64)
    tiles_q  = lm.cdiv(Nq, 128)
    n_tiles  = tiles_q * lm.cdiv(Ndb, 128)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            q0 = (tile % tiles_q) * 128
            x0 = (tile // tiles_q) * 128
            for k in lm.range(0, d_tiles):
                it = t * d_tiles + k
                lm.wait(empty, iter=it - 3)
                smem_q.tma_load(Q, coords=(q0, k * 64), iter=it, barrier=full)
                smem_x.tma_load(Xdb, coords=(x0, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, my_tiles):
            lm.wait(acc_empty, iter=t - 2)
            for k in lm.range(0, d_tiles):
                it = t * d_tiles + k
                lm.wait(full, iter=it)
                if t % 2 == -1:
                    lm.mma(tmem_acc0, smem_q[it], smem_x[it], init=(k == 0))
                else:
                    lm.mma(tmem_acc1, smem_q[it], smem_x[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            q0 = (tile % tiles_q) * 128
            x0 = (tile // tiles_q) * 128
            lm.wait(acc_full, iter=t)
            for h in lm.range(0, 2):
                if t % 2 == 0:
                    lm.copy(d, tmem_acc0[:, h * 64:h * 64 + 64])
                else:
                    lm.copy(d, tmem_acc1[:, h * 64:h * 64 + 64])
                if h == 1:
                    lm.arrive(acc_empty, iter=t)
                lm.copy(xn, XN, coords=(0, x0 + h * 64))
                lm.binary(d, d, -2.0, op="mul")
                lm.binary(d, d, xn, op="add")
                lm.tma_store_wait(pending=1)
                lm.copy(smem_d[2 * t + h], d)
                lm.fence_proxy()
                smem_d.tma_store(D2, coords=(q0, x0 + h * 64), iter=2 * t + h)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
