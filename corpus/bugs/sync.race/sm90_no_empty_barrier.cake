# BUG (sync.race): the race of the paper's section 3 figure - a multi-lap
# TMA ring with only a "full" barrier.  The producer never learns that a
# slot has been consumed, so on its second lap (k >= 2) it refills slot k%2
# while the consumer warpgroup may still be reading it (ld.shared into
# registers) for iteration k-2.
# Models: a Hopper streaming row-reduction (normalization statistics).
# Fix: sm90_no_empty_barrier_fixed.cake - add the empty barrier
# (consumer arrives after its read, producer waits iter=k-2).
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase data.stale-read sync.arrival-overflow
@cake.schedule(target="sm_90a")
def rowsum_no_empty(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe = lm.pipeline(stages=2)
    full = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)  # expect-error: sync.race

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])  # expect-error: sync.race
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
