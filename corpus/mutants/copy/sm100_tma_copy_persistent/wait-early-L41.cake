# mutant: wait-early
# original: corpus/copy/sm100_tma_copy_persistent.cake
# line: 41: lm.tma_store_wait(pending=0)
# change: moved `for t in lm.range(0, my_tiles):` after `lm.tma_store_wait(pending=0)`
# label: bad (sync.async-at-exit, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), rows in {1, 144, 272, 400, 528, 1040}; block_idx 0 of grid_dim 1; 210 states; first violation: sync.async-at-exit: compute exits while its TMA store group still accesses shared memory (smem_y[0] bytes [65536, 81920): no lm.tma_store_wait(pending=0) before exit) at `smem_y.tma_store(Y, coords=(r0, 0), iter=t)` (line 40) (rows=1)
# expect-any: sync.async-at-exit proxy.missing-fence
# Blackwell persistent TMA copy/scale kernel (no tensor cores, no TMEM):
# TMA warp -> 4-slot ring -> compute warpgroup -> 2-slot TMA store ring.
# Same structure as copy/sm90_tma_load_store_ring.cake on sm_100a, where
# TMA, mbarriers and bulk stores behave the same.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def scale_copy_sm100(lm, X: LM.tma2d, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(98304)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_y = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    load    = lm.role(warps=[4])
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=pipe)

    n_tiles  = lm.cdiv(rows, 128)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(empty, iter=t - 4)
            smem_x.tma_load(X, coords=(r0, 0), iter=t, barrier=full)

    with compute:
        lm.tma_store_wait(pending=0)
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(full, iter=t)
            lm.copy(x, smem_x[t])
            lm.arrive(empty, iter=t)
            lm.binary(x, x, 1.5, op="mul")
            lm.tma_store_wait(pending=1)
            lm.copy(smem_y[t], x)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(r0, 0), iter=t)
            lm.tma_store_commit()
