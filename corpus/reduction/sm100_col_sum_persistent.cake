# Blackwell column-sum (bias-gradient reduction, dbias = sum over rows of
# dY): persistent CTAs own 128-column stripes and stream 64-row tiles of
# each stripe through a 4-slot TMA ring; partial sums stay in registers.
# Stripe loop is the outer (persistent) loop, the ring counter is global.
# expect: pass
@cake.schedule(target="sm_100a")
def col_sum_sm100(lm, G: LM.tma2d, DB: LM.gmem, R: LM.i32, C: LM.i32):
    lm.assume(R > 0)
    lm.assume(C > 0)
    pool   = lm.smem(65536)
    smem_g = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=4)
    g      = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(1, 128), dtype=lm.f32)
    acc    = lm.regs(shape=(1, 128), dtype=lm.f32)

    red   = lm.role(warps=[0, 1, 2, 3])
    load  = lm.role(warps=[4])
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    stripes   = lm.cdiv(C, 128)
    r_tiles   = lm.cdiv(R, 64)
    my_stripe = lm.cdiv(max(stripes - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for s in lm.range(0, my_stripe):
            c0 = (lm.block_idx(0) + s * lm.grid_dim(0)) * 128
            for j in lm.range(0, r_tiles):
                it = s * r_tiles + j
                lm.wait(empty, iter=it - 4)
                smem_g.tma_load(G, coords=(j * 64, c0), iter=it, barrier=full)

    with red:
        for s in lm.range(0, my_stripe):
            c0 = (lm.block_idx(0) + s * lm.grid_dim(0)) * 128
            lm.fill(acc, 0.0)
            for j in lm.range(0, r_tiles):
                it = s * r_tiles + j
                lm.wait(full, iter=it)
                lm.copy(g, smem_g[it])
                lm.fence_proxy()  # generic reads done before the slot goes back to TMA
                lm.arrive(empty, iter=it)
                lm.reduce(part, g, op="sum", axis=0)
                lm.binary(acc, acc, part, op="add")
            lm.copy(DB, acc, coords=(0, c0))
