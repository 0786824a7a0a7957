# BUG (data.stale-read): the bias changes per tile, and the loader stores
# tile t's bias into slot t % 2 of a 2-slot ring (full/empty handshake),
# but the compute warpgroup reads it as if it were written once: always
# smem_b[0].  On tile 1 it has waited for slot 1 (lap 0 of slot 1) and
# reads slot 0, meaning lap 1 of that slot - which holds tile 0's bias (or
# is being overwritten with tile 2's: the loader may refill slot 0 once
# tile 0 released it, so it races too).  This is what the "written once"
# rule must still catch: the writers do write a newer lap over the bytes.
# Happens for every rows > 64 (two or more tiles).
# Correct patterns: sm90_bias_ring_read_one_slot_fixed.cake (read
# smem_b[t]); sm90_bias_written_once_fixed.cake (a bias that does not
# change, written once).
# expect: data.stale-read
# expect: sync.race
@cake.schedule(target="sm_90a")
def bias_ring_read_one_slot(lm, X: LM.gmem, Bias: LM.gmem, Y: LM.gmem, rows: LM.i32):
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
            lm.copy(y, smem_b[0])  # expect-error: data.stale-read
            lm.arrive(b_empty, iter=t)
            lm.binary(x, x, y, op="add")
            lm.copy(Y, x, coords=(t * 64, 0))
