# mutant: stage-plus-1
# original: corpus/normalization/sm80_layernorm_rows.cake
# line: 25: smem_x.cp_async(X, coords=(r0, c * 256), stage=c)
# change: stage: `c` -> `(c + 1) % 4`
# label: benign: no violation under exhaustive exploration with rows = 1; block_idx 0 of grid_dim 1; 78 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Ampere LayerNorm forward for hidden size 1024 (Apex/PyTorch-style row
# kernel): each CTA normalizes 16 rows; the 16x1024 bf16 row block (32 KiB)
# is brought in with cp.async in four 16x256 column chunks (one group each),
# reduced to mean and variance in registers, normalized with gamma/beta and
# written back with 128-bit global stores.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def layernorm_1024(lm, X: LM.gmem, W: LM.gmem, Bb: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(16, 256), dtype=lm.bf16, stages=4)
    x      = lm.regs(shape=(16, 256), dtype=lm.f32)
    w      = lm.regs(shape=(1, 256), dtype=lm.f32)
    b      = lm.regs(shape=(1, 256), dtype=lm.f32)
    s1     = lm.regs(shape=(16, 1), dtype=lm.f32)
    s2     = lm.regs(shape=(16, 1), dtype=lm.f32)
    part   = lm.regs(shape=(16, 1), dtype=lm.f32)
    mean   = lm.regs(shape=(16, 1), dtype=lm.f32)
    rstd   = lm.regs(shape=(16, 1), dtype=lm.f32)
    y      = lm.regs(shape=(16, 256), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    r0 = lm.block_idx(0) * 16
    with wg:
        for c in lm.range(0, 4):
            smem_x.cp_async(X, coords=(r0, c * 256), stage=(c + 1) % 4)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.fill(s1, 0.0)
        lm.fill(s2, 0.0)
        for c in lm.range(0, 4):
            lm.copy(x, smem_x[c])
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(s1, s1, part, op="add")
            lm.binary(x, x, x, op="mul")
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(s2, s2, part, op="add")
        lm.binary(mean, s1, 0.0009765625, op="mul")
        lm.binary(rstd, s2, 0.0009765625, op="mul")
        lm.binary(part, mean, mean, op="mul")
        lm.binary(rstd, rstd, part, op="sub")
        lm.binary(rstd, rstd, 0.00001, op="add")
        lm.unary(rstd, rstd, op="rsqrt")
        for c in lm.range(0, 4):
            lm.copy(x, smem_x[c])
            lm.copy(w, W, coords=(0, c * 256))
            lm.copy(b, Bb, coords=(0, c * 256))
            lm.binary(x, x, mean, op="sub")
            lm.binary(x, x, rstd, op="mul")
            lm.binary(x, x, w, op="mul")
            lm.binary(x, x, b, op="add")
            lm.copy(y, x)
            lm.copy(Y, y, coords=(r0, c * 256))
