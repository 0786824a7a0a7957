# mutant: commit-after-wait
# original: corpus/normalization/sm80_fused_add_rmsnorm.cake
# line: 26: lm.cp_async_commit()
# change: moved `lm.cp_async_commit()` after `lm.cp_async_wait(pending=0)`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), rows = 1; block_idx 0 of grid_dim 1; 20 states; first violation: sync.race: wg reads pool [0, 4096) while its own cp.async (its group is not retired) still accesses it at `lm.copy(h, smem_x[c])` (line 30) (rows=1)
# expect-any: sync.race
# Ampere fused residual-add + RMSNorm (vLLM fused_add_rms_norm), hidden
# size 2048, 8 rows per CTA: x and the residual r are staged in shared
# memory with cp.async (one group, retired by one wait); h = x + r is
# written back over the x staging chunk (generic smem write, re-read by
# the same warps in the second pass), stored to the residual in global
# memory, and normalized into y.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def fused_add_rmsnorm(lm, X: LM.gmem, R: LM.gmem, W: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(65536)
    smem_x = pool.view(offset=0,     shape=(8, 256), dtype=lm.bf16, stages=8)
    smem_r = pool.view(offset=32768, shape=(8, 256), dtype=lm.bf16, stages=8)
    h      = lm.regs(shape=(8, 256), dtype=lm.f32)
    r      = lm.regs(shape=(8, 256), dtype=lm.f32)
    w      = lm.regs(shape=(1, 256), dtype=lm.f32)
    ss     = lm.regs(shape=(8, 1), dtype=lm.f32)
    part   = lm.regs(shape=(8, 1), dtype=lm.f32)
    o      = lm.regs(shape=(8, 256), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    r0 = lm.block_idx(0) * 8
    with wg:
        for c in lm.range(0, 8):
            smem_x.cp_async(X, coords=(r0, c * 256), stage=c)
            smem_r.cp_async(R, coords=(r0, c * 256), stage=c)
        lm.cp_async_wait(pending=0)
        lm.cp_async_commit()
        lm.fill(ss, 0.0)
        for c in lm.range(0, 8):
            lm.copy(h, smem_x[c])
            lm.copy(r, smem_r[c])
            lm.binary(h, h, r, op="add")
            lm.copy(smem_x[c], h)
            lm.copy(o, h)
            lm.copy(R, o, coords=(r0, c * 256))
            lm.binary(h, h, h, op="mul")
            lm.reduce(part, h, op="sum", axis=1)
            lm.binary(ss, ss, part, op="add")
        lm.binary(ss, ss, 0.00048828125, op="mul")
        lm.binary(ss, ss, 0.000001, op="add")
        lm.unary(ss, ss, op="rsqrt")
        for c in lm.range(0, 8):
            lm.copy(h, smem_x[c])
            lm.copy(w, W, coords=(0, c * 256))
            lm.binary(h, h, ss, op="mul")
            lm.binary(h, h, w, op="mul")
            lm.copy(o, h)
            lm.copy(Y, o, coords=(r0, c * 256))
