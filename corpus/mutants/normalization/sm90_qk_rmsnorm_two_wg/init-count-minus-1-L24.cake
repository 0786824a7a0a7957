# mutant: init-count-minus-1
# original: corpus/normalization/sm90_qk_rmsnorm_two_wg.cake
# line: 24: empty = lm.barrier(prod=[norm], cons=[load], init_count=2, pipeline=pipe)
# change: init_count: `2` -> `1`
# label: bad (sync.arrival-overflow, proxy.missing-fence, sync.lost-phase, sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), rows in {1, 144, 272, 400, 528, 1040}; block_idx 0 of grid_dim 1; 968 states; first violation: sync.arrival-overflow: phase 0 of empty[0] gets 2 arrivals, but the barrier expects 1 (init_count): the extra ones complete a phase nobody meant to complete at `lm.arrive(empty, iter=t)` (line 42) (rows=528)
# expect-any: sync.arrival-overflow proxy.missing-fence sync.lost-phase sync.race data.stale-read
# Hopper QK-norm (per-head RMSNorm over head_dim 128, as in Qwen3/OLMo2
# attention prologues): rows = tokens x heads, each row 128 wide.
# Persistent; a TMA warp streams 128-row tiles through a 3-slot ring; two
# consumer warpgroups each normalize 64 rows of the tile (row slices),
# release the slot (empty init_count=2), and write through their own
# 2-slot staging ring (2*instance + t%2) with TMA stores.
# Rows of 128 bf16 = 256 bytes: unswizzled views.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def qk_rmsnorm(lm, X: LM.tma2d, W: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(163840)
    smem_x = pool.view(offset=0,     shape=(128, 128), dtype=lm.bf16, stages=3)
    smem_y = pool.view(offset=98304, shape=(64, 128),  dtype=lm.bf16, stages=4)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    sq     = lm.regs(shape=(64, 128), dtype=lm.f32)
    w      = lm.regs(shape=(1, 128), dtype=lm.f32)
    ss     = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    norm  = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[load], cons=[norm], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[norm], cons=[load], init_count=1, pipeline=pipe)

    n_tiles  = lm.cdiv(rows, 128)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(empty, iter=t - 3)
            smem_x.tma_load(X, coords=(r0, 0), iter=t, barrier=full)

    with norm:
        m0 = 64 * lm.instance()
        lm.copy(w, W, coords=(0, 0))
        for t in lm.range(0, my_tiles):
            r0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(full, iter=t)
            lm.copy(x, smem_x[t][m0:m0 + 64, :])
            lm.arrive(empty, iter=t)
            lm.binary(sq, x, x, op="mul")
            lm.reduce(ss, sq, op="sum", axis=1)
            lm.binary(ss, ss, 0.0078125, op="mul")
            lm.binary(ss, ss, 0.000001, op="add")
            lm.unary(ss, ss, op="rsqrt")
            lm.binary(x, x, ss, op="mul")
            lm.binary(x, x, w, op="mul")
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_y[s], x)
            lm.fence_proxy()
            smem_y.tma_store(Y, coords=(r0 + m0, 0), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
