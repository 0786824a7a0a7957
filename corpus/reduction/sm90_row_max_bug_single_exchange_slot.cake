# BUG (sync.race): the cross-warpgroup exchange buffer reduced to ONE slot
# (smem_p[0] every tile) to save 512 bytes.  With one bar.sync per tile,
# instance 1 can write tile j+1's partial as soon as it leaves the sync of
# tile j - while instance 0, released by the same sync, is still reading
# tile j's partial.  The 2-slot version alternates slots, so the write of
# tile j+1 goes to the slot instance 0 finished before the sync of tile j.
# Models: reduction/sm90_row_max_two_wg.cake.
# Fix: reduction/sm90_row_max_two_wg.cake (slot j%2).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def row_max_single_exchange_slot(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(36864)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2)
    smem_p = pool.view(offset=32768, shape=(128, 1),  dtype=lm.f32,  stages=2)
    x      = lm.regs(shape=(128, 32), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    other  = lm.regs(shape=(128, 1), dtype=lm.f32)
    best   = lm.regs(shape=(128, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=2, pipeline=pipe)
    xchg  = lm.named_barrier(roles=[red])

    d_tiles = lm.cdiv(D, 64)
    r0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(r0, j * 64), iter=j, barrier=full)

    with red:
        c0 = 32 * lm.instance()
        lm.fill(best, -1e30)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j][:, c0:c0 + 32])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="max", axis=1)
            if lm.instance() == 1:
                lm.copy(smem_p[0], part)  # expect-error: sync.race
            lm.sync(xchg)
            if lm.instance() == 0:
                lm.copy(other, smem_p[0])  # expect-error: sync.race
                lm.binary(part, part, other, op="max")
                lm.binary(best, best, part, op="max")
        if lm.instance() == 0:
            lm.copy(Y, best, coords=(r0, 0))
