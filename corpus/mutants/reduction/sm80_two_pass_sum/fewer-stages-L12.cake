# mutant: fewer-stages
# original: corpus/reduction/sm80_two_pass_sum.cake
# line: 12: smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
# change: stages: `2` -> `1`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), sum_pass1: D in {1, 144, 272}; block_idx 0 of grid_dim 1; sum_pass2: NB = 0; block_idx 0 of grid_dim 1; 19 states; first violation: sync.race: wg writes pool [0, 16384) while its own cp.async (its group is not retired) still accesses it at `smem_x.cp_async(X, coords=(r0, (b0 + j + 1) * 128), iter=j + 1)` (line 25) (D=144)
# expect-any: sync.race
# A two-kernel reduction in one file (multi-schedule file): pass 1 reduces
# 128-element blocks of each row to partial sums with cp.async double
# buffering; pass 2 sums the partials (at most 128 per row) straight from
# global memory.  Both schedules must pass.
# Models: the classic CUB/PyTorch two-pass reduction.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def sum_pass1(lm, X: LM.gmem, P: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    lm.assume(D <= 128 * 128 * 8)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=1)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(64, 1), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    r0 = lm.block_idx(0) * 64
    b0 = lm.block_idx(1) * 8
    nb = min(8, lm.cdiv(D, 128) - b0)
    with wg:
        if nb > 0:
            smem_x.cp_async(X, coords=(r0, b0 * 128), iter=0)
        lm.cp_async_commit()
        for j in lm.range(0, nb):
            if j + 1 < nb:
                smem_x.cp_async(X, coords=(r0, (b0 + j + 1) * 128), iter=j + 1)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.copy(x, smem_x[j])
            lm.reduce(part, x, op="sum", axis=1)
            lm.copy(P, part, coords=(r0, b0 + j))
        lm.cp_async_wait(pending=0)

@cake.schedule(target="sm_80")
def sum_pass2(lm, P: LM.gmem, Y: LM.gmem, NB: LM.i32):
    p     = lm.regs(shape=(64, 128), dtype=lm.f32)
    total = lm.regs(shape=(64, 1), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    r0 = lm.block_idx(0) * 64
    with wg:
        lm.copy(p, P, coords=(r0, 0))
        lm.reduce(total, p, op="sum", axis=1)
        lm.copy(Y, total, coords=(r0, 0))
