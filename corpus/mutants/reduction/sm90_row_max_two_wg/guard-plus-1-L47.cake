# mutant: guard-plus-1
# original: corpus/reduction/sm90_row_max_two_wg.cake
# line: 47: if lm.instance() == 1:
# change: guard: `1` -> `2`
# label: bad (data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 98 states; first violation: data.stale-read: red[0] reads smem_p[0] bytes [32768, 33280) (for index 0) but nothing was written there yet at `lm.copy(other, smem_p[j])` (line 51) (D=1)
# expect-any: data.stale-read proxy.missing-fence
# Hopper row-max with two consumer warpgroups splitting each tile's
# COLUMNS (sub-tile slices [:, 32i:32i+32]) and combining through shared
# memory - the cross-warpgroup reduction pattern of FA3/CUTLASS epilogues.
#  * TMA warp streams 128x64 tiles of 128 rows through a 2-slot ring; both
#    instances read their half and release (empty init_count=2).
#  * instance 1 writes its partial row maxima to a 2-slot smem exchange
#    buffer (slot t%2) and both instances bar.sync `xchg`; instance 0 reads
#    it, combines and accumulates.  The exchange slot written at tile t was
#    last read by instance 0 at tile t-2, before instance 0's sync of tile
#    t-1 - which instance 1 passed before writing: no race, one sync per
#    tile.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def row_max_two_wg(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(36864)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
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
            if lm.instance() == 2:
                lm.copy(smem_p[j], part)
            lm.sync(xchg)
            if lm.instance() == 0:
                lm.copy(other, smem_p[j])
                lm.binary(part, part, other, op="max")
                lm.binary(best, best, part, op="max")
        if lm.instance() == 0:
            lm.copy(Y, best, coords=(r0, 0))
