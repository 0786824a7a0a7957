# A bias tile written ONCE with ordinary stores and read on every
# iteration (issue 9 point 7).  The loader warpgroup stores the 128x64 bias
# tile into shared memory once, bar_arrive's bias_ready, and then feeds
# the X tiles through a 2-slot TMA ring; the compute warpgroup bar.sync's
# bias_ready once and, on every tile, adds the same smem bias to the tile
# it waited for.  Correct: nothing ever rewrites smem_b, so every read
# finds the one lap that was written.  (The checker used to count each
# return of the reader after a wait as a new lap meant - "meaning lap 1 of
# the slot, but it holds lap 0" - although no writer writes a lap 1: a
# read means at most the highest lap another instance writes over its
# bytes, docs/rules/data.stale-read.md.)
# The stale variant: sm90_bias_ring_read_one_slot.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def bias_written_once(lm, X: LM.tma2d, Bias: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=1)
    b      = lm.regs(shape=(128, 64), dtype=lm.bf16)
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    y      = lm.regs(shape=(128, 64), dtype=lm.f32)

    load    = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=pipe)
    bias_ready = lm.named_barrier(roles=[load, compute])

    n_tiles = lm.cdiv(rows, 128)

    with load:
        lm.copy(b, Bias, coords=(0, 0))
        lm.copy(smem_b[0], b)
        lm.bar_arrive(bias_ready)
        for t in lm.range(0, n_tiles):
            lm.wait(empty, iter=t - 2)
            smem_x.tma_load(X, coords=(t * 128, 0), iter=t, barrier=full)

    with compute:
        lm.sync(bias_ready)
        for t in lm.range(0, n_tiles):
            lm.wait(full, iter=t)
            lm.copy(x, smem_x[t])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, iter=t)
            lm.copy(y, smem_b[0])
            lm.binary(x, x, y, op="add")
            lm.copy(Y, x, coords=(t * 128, 0))
