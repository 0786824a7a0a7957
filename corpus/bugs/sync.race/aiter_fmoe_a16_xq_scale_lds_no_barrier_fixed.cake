# FIXED form of aiter_fmoe_a16_xq_scale_lds_no_barrier.cake (ROCm/aiter
# PR #4995): the s_waitcnt(lgkmcnt(0)) + s_barrier() the PR inserts between
# X_dyn_quant() and dequantZ() in the a16 FP8-blockscale fused-MoE kernels,
# so every wave's per-token XQ dequant scales are in LDS before any wave
# reads the token group's scales.  The model is the broken file's (4
# one-wave instances, 16 tokens, wave w quantizes tokens [4w, 4w + 4)).
# expect: pass
@cake.schedule(target="sm_80")
def aiter_fmoe_a16_xq_scale_lds_no_barrier_fixed(lm, X: LM.gmem, Zp: LM.gmem, Y: LM.gmem):
    pool = lm.smem(64)
    xs   = pool.view(offset=0, shape=(16, 1), dtype=lm.f32, stages=1)
    x    = lm.regs(shape=(4, 128),  dtype=lm.f32)
    amax = lm.regs(shape=(4, 1),    dtype=lm.f32)
    sc   = lm.regs(shape=(4, 1),    dtype=lm.f32)
    s16  = lm.regs(shape=(16, 1),   dtype=lm.f32)
    z    = lm.regs(shape=(16, 64),  dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        t0 = 4 * w
        lm.copy(x, X, coords=(t0, 0))                       # X_dyn_quant: this wave's tokens
        lm.unary(x, x, op="abs")
        lm.reduce(amax, x, op="max", axis=1)
        lm.binary(sc, amax, 0.002232142857, op="mul")       # amax / 448
        lm.copy(xs[0][t0:t0 + 4, :], sc)                    # per-token dequant scales to LDS
        lm.sync(block)                                      # the fix: s_waitcnt lgkmcnt(0) + s_barrier
        lm.copy(z, Zp, coords=(0, 64 * w))                  # (the MFMA product, left out)
        lm.copy(s16, xs[0])                                 # XQ_lds_rd / dequantZ: all 16 scales
        lm.binary(z, z, s16, op="mul")
        lm.copy(Y, z, coords=(0, 64 * w))
