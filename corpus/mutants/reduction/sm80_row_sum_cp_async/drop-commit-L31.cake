# mutant: drop-commit
# original: corpus/reduction/sm80_row_sum_cp_async.cake
# line: 31: lm.cp_async_commit()
# change: deleted `lm.cp_async_commit()`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), D in {1, 144, 272, 400, 656, 784}; block_idx 0 of grid_dim 1; 70 states; first violation: sync.race: wg reads pool [16384, 32768) while its own cp.async (its group is not retired) still accesses it at `lm.copy(x, smem_x[j])` (line 26) (D=400)
# expect-any: sync.race
# Ampere row-sum over a wide matrix (e.g. the sum-of-squares pass of a
# norm, or a loss reduction): one CTA owns 64 rows and streams their
# columns through a 3-stage cp.async pipeline (CUTLASS-style group
# accounting: S-1 prologue groups, wait pending=S-2, refill the slot read
# last iteration, always commit).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def row_sum_sm80(lm, X: LM.gmem, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=3)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(64, 1), dtype=lm.f32)
    total  = lm.regs(shape=(64, 1), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    d_tiles = lm.cdiv(D, 128)
    r0 = lm.block_idx(0) * 64
    with wg:
        lm.fill(total, 0.0)
        for s in lm.range(0, 2):
            if s < d_tiles:
                smem_x.cp_async(X, coords=(r0, s * 128), stage=s)
            lm.cp_async_commit()
        for j in lm.range(0, d_tiles):
            lm.cp_async_wait(pending=1)
            lm.copy(x, smem_x[j])
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
            if j + 2 < d_tiles:
                smem_x.cp_async(X, coords=(r0, (j + 2) * 128), iter=j + 2)
        lm.cp_async_wait(pending=0)
        lm.copy(Y, total, coords=(r0, 0))
