# mutant: phase-minus-1
# original: corpus/basics/explicit_phase.cake
# line: 31: lm.wait(empty, stage=j % 2, phase=j // 2 - 1)
# change: phase: `j // 2 - 1` -> `j // 2 - 2`
# label: bad (sync.arrival-underflow, sync.arrival-overflow, sync.lost-phase, sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 97 states; first violation: sync.arrival-underflow: phase -1 of empty[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(empty, stage=j % 2, phase=j // 2 - 2)` (line 31) (D=144)
# expect-any: sync.arrival-underflow sync.arrival-overflow sync.lost-phase sync.race data.stale-read proxy.missing-fence
# Explicit slot + phase addressing (stage=, phase=) on a 2-slot TMA ring.
# Models a Hopper row-sum / norm-statistics kernel: one TMA warp streams
# 128x64 bf16 tiles of X, one consumer warpgroup reads each tile into
# registers (ld.shared), releases the slot and accumulates row sums.
# The same ring written with iter= is basics/iter_ring.cake; here the
# producer skips the empty wait on its first lap with an `if` because an
# explicit phase of -1 is not a thing (only iter= < 0 passes at once).
#   full : slot j%2, phase j//2   (the (j//2)-th fill of that slot)
#   empty: slot j%2, phase j//2-1 (the release of iteration j-2)
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rowsum_explicit_phase(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[load], cons=[red], init_count=1)
    empty = lm.barrier(count=2, prod=[red], cons=[load], init_count=1)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            if j >= 2:
                lm.wait(empty, stage=j % 2, phase=j // 2 - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), stage=j % 2, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, stage=j % 2, phase=j // 2)
            lm.copy(x, smem_x[j % 2])
            lm.arrive(empty, stage=j % 2)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
