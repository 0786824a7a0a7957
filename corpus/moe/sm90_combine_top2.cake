# Hopper MoE combine for top-2 routing: out = w0 * y0 + w1 * y1, where y0 /
# y1 are the two expert outputs of each token already un-permuted into
# token order and w0 / w1 the gate weights.  A TMA warp loads the y0 and
# y1 tiles of a token block onto ONE barrier slot per iteration (derived
# expect_tx = both tiles' bytes), the warpgroup combines and TMA-stores.
# Persistent; 2-slot input ring, 2-slot store ring.
# expect: pass
@cake.schedule(target="sm_90a")
def moe_combine_top2(lm, Y0: LM.tma2d, Y1: LM.tma2d, Wt: LM.gmem, Out: LM.tma2d,
                     T: LM.i32, H: LM.i32):
    lm.assume(T > 0)
    lm.assume(H > 0)
    pool    = lm.smem(98304)
    smem_y0 = pool.view(offset=0,     shape=(64, 128), dtype=lm.bf16, stages=2)
    smem_y1 = pool.view(offset=32768, shape=(64, 128), dtype=lm.bf16, stages=2)
    smem_o  = pool.view(offset=65536, shape=(64, 128), dtype=lm.bf16, stages=2)
    a       = lm.regs(shape=(64, 128), dtype=lm.f32)
    b       = lm.regs(shape=(64, 128), dtype=lm.f32)
    w0      = lm.regs(shape=(64, 1), dtype=lm.f32)
    w1      = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    tiles_t  = lm.cdiv(T, 64)
    tiles_h  = lm.cdiv(H, 128)
    n_tiles  = tiles_t * tiles_h
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            r0 = (tile // tiles_h) * 64
            c0 = (tile % tiles_h) * 128
            lm.wait(empty, iter=t - 2)
            smem_y0.tma_load(Y0, coords=(r0, c0), iter=t, barrier=full)
            smem_y1.tma_load(Y1, coords=(r0, c0), iter=t, barrier=full)

    with wg:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            r0 = (tile // tiles_h) * 64
            c0 = (tile % tiles_h) * 128
            lm.copy(w0, Wt, coords=(r0, 0))
            lm.copy(w1, Wt, coords=(r0, 1))
            lm.wait(full, iter=t)
            lm.copy(a, smem_y0[t])
            lm.copy(b, smem_y1[t])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, iter=t)
            lm.binary(a, a, w0, op="mul")
            lm.binary(b, b, w1, op="mul")
            lm.binary(a, a, b, op="add")
            lm.tma_store_wait(pending=1)
            lm.copy(smem_o[t], a)
            lm.fence_proxy()
            smem_o.tma_store(Out, coords=(r0, c0), iter=t)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
