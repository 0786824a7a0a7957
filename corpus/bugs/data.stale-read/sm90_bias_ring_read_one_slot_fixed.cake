# Fixed version of sm90_bias_ring_read_one_slot.cake: a per-tile bias
# through a 2-slot ring of ordinary stores (full/empty handshake); the
# compute warpgroup reads the slot of the tile it waited for, smem_b[t].
# expect: pass
@cake.schedule(target="sm_90a")
def bias_ring_read_one_slot_fixed(lm, X: LM.gmem, Bias: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(32768)
    smem_b = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    b      = lm.regs(shape=(64, 128), dtype=lm.bf16)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    y      = lm.regs(shape=(64, 128), dtype=lm.f32)

    load    = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    pipe    = lm.pipeline(stages=2)
    b_full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=pipe)
    b_empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=pipe)

    n_tiles = lm.cdiv(rows, 64)

    with load:
        for t in lm.range(0, n_tiles):
            lm.copy(b, Bias, coords=(t * 64, 0))
            lm.wait(b_empty, iter=t - 2)
            lm.copy(smem_b[t], b)
            lm.arrive(b_full, iter=t)

    with compute:
        for t in lm.range(0, n_tiles):
            lm.copy(x, X, coords=(t * 64, 0))
            lm.wait(b_full, iter=t)
            lm.copy(y, smem_b[t])
            lm.arrive(b_empty, iter=t)
            lm.binary(x, x, y, op="add")
            lm.copy(Y, x, coords=(t * 64, 0))
