# mutant: iter-plus-lap
# original: corpus/layout/good_tma_box_rows_bounded.cake
# line: 35: lm.wait(full, iter=j)
# change: iter: `j` -> `j + 2`
# label: bad (sync.stale-phase, sync.arrival-underflow, sync.deadlock) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}, BM = 64 (5 combinations with every trip count <= 5); block_idx 0 of grid_dim 1; 37 states; first violation: sync.stale-phase: wait for phase 1 of full[0] passes with completed count 0 (expected 2): only 0 phases of full[0] completed: the parity of phase 1 matched a lap early at `lm.wait(full, iter=j + 2)` (line 35) (D=1, BM=64)
# expect-any: sync.stale-phase sync.arrival-underflow sync.deadlock
# LAYOUT tma.box-extent (good, symbolic): the box is BM x 64, BM a multiple
# of 64 up to 256: every box dimension is within 1..256 for every allowed
# BM. Bad twin: bad_tma_box_rows_unbounded.
# (the original's expectation: see the label above)

@cake.schedule(target="sm_90a")
def good_tma_box_rows_bounded(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 64)
    lm.assume(BM <= 256)
    lm.assume(BM % 64 == 0)
    pool   = lm.smem(2 * BM * 128)
    smem_x = pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)
    part   = lm.regs(shape=(BM, 1), dtype=lm.f32)
    total  = lm.regs(shape=(BM, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * BM

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j + 2)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
