# Real bug: ROCm/aiter PR #4995 ("[ASM] fix(fmoe): add missing XQ scale
# barrier in a16 FP8-blockscale kernels"; it reverts the workaround #4811
# that routed tokens away from these kernels): in the a16 FP8-blockscale
# fused-MoE assembly kernels (fmoe_bf16_a16_blockscaleFp8_g1u1_vs_silu_1tg_*:
# 16 x 256 and 16 x 128 tiles, one token group), X_dyn_quant() quantizes the
# bf16 activations in the kernel and writes the per-token XQ dequant scales
# to LDS, and dequantZ() / XQ_lds_rd() in the OTHER waves read those scales
# with no s_barrier() between: they read stale or uninitialized scales
# (GLM-5.2-FP8 gsm8k 0.95 -> 0.00 in ATOM serving).  The fp8 variants load
# their scales from global memory and are immune.  The fix inserts
# s_waitcnt(lgkmcnt(0)) + s_barrier() between X_dyn_quant() and dequantZ();
# the fixed form is aiter_fmoe_a16_xq_scale_lds_no_barrier_fixed.cake.
# Written in CAKE IR as an sm_80 schedule from the PR text (the assembly
# source is not in the stored corpora): each wave is a one-warp instance
# (group=1), s_barrier() a named barrier over the role; wave w quantizes
# tokens [4w, 4w + 4) of the 16-token group (one 128-wide K block: its row
# amax, the scale amax / 448) and writes the scales into a shared column;
# every wave then dequantizes its 16 x 64 accumulator with all 16 scales
# (XQ_lds_rd + dequantZ).  Left out: the quantized tile XQ itself (how the
# kernel hands it to the other waves' MFMA is not in the PR text), the
# weights (buffer_load + MFMA: the wave's product is read as a stand-in
# register tile from Zp), the weight scales, the gate/up halves and SiLU,
# the other K blocks.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def aiter_fmoe_a16_xq_scale_lds_no_barrier(lm, X: LM.gmem, Zp: LM.gmem, Y: LM.gmem):
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
        lm.copy(xs[0][t0:t0 + 4, :], sc)                    # per-token dequant scales to LDS  # expect-error: sync.race
        lm.copy(z, Zp, coords=(0, 64 * w))                  # (the MFMA product, left out)
        lm.copy(s16, xs[0])                                 # XQ_lds_rd / dequantZ: all 16 scales  # expect-error: sync.race
        lm.binary(z, z, s16, op="mul")
        lm.copy(Y, z, coords=(0, 64 * w))
