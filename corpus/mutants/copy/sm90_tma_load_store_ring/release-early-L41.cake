# mutant: release-early
# original: corpus/copy/sm90_tma_load_store_ring.cake
# line: 41: lm.arrive(empty, iter=t)
# change: moved `lm.copy(x, smem_x[t])` after `lm.arrive(empty, iter=t)`
# label: bad (sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), rows in {1, 144, 272, 400, 656, 784}, cols in {1, 80, 144, 208, 336, 400} (14 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 462 states; first violation: sync.race: load's TMA load (not landed yet) writes smem_x[0] bytes [0, 16384) while compute's lm.copy reads them at `smem_x.tma_load(X, coords=((tile // tiles_c) * 128, (tile % tiles_c) * 64), iter=t, barrier=full)` (line 34) (rows=1, cols=208)
# expect-any: sync.race data.stale-read proxy.missing-fence
# Hopper streaming transform with both directions on TMA (the structure of
# a CUTLASS/Triton TMA elementwise or cast kernel):
#   TMA warp --full/empty ring (3 slots)--> compute warpgroup
#   compute warpgroup --store ring (2 slots)--> TMA stores
# Persistent over 128x64 tiles.  The compute warpgroup releases an input
# slot right after copying it to registers, and keeps at most one output
# store in flight before rewriting a staging slot.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gelu_like_tma_ring(lm, X: LM.tma2d, Y: LM.tma2d, rows: LM.i32, cols: LM.i32):
    lm.assume(rows > 0)
    lm.assume(cols > 0)
    pool   = lm.smem(81920)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_y = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    e      = lm.regs(shape=(128, 64), dtype=lm.f32)

    load    = lm.role(warps=[0])
    compute = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=pipe)

    tiles_r  = lm.cdiv(rows, 128)
    tiles_c  = lm.cdiv(cols, 64)
    n_tiles  = tiles_r * tiles_c
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            lm.wait(empty, iter=t - 3)
            smem_x.tma_load(X, coords=((tile // tiles_c) * 128, (tile % tiles_c) * 64), iter=t, barrier=full)

    with compute:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            lm.wait(full, iter=t)
            lm.arrive(empty, iter=t)
            lm.copy(x, smem_x[t])
            # x * sigmoid(1.702 x) via exp2: e = 1 / (1 + 2^(-1.702*log2(e)*x))
            lm.binary(e, x, -2.4554669, op="mul")
            lm.unary(e, e, op="exp2")
            lm.binary(e, e, 1.0, op="add")
            lm.unary(e, e, op="recip")
            lm.binary(x, x, e, op="mul")
            lm.tma_store_wait(pending=1)
            lm.copy(smem_y[t], x)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=((tile // tiles_c) * 128, (tile % tiles_c) * 64), iter=t)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
