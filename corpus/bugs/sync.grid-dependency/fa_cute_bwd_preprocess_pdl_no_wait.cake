# BUG (sync.grid-dependency): Dao-AILab/flash-attention PR #2481 ("[cute,bwd]
# fix PDL race in bwd_preprocess, which corrupting dpsum on SM90+",
# 2026-04-21; mirrored for the sm100 hd256 dq kernel by PR #2498).
# FlashAttentionBackwardPreprocess.kernel (flash_attn/cute/
# flash_bwd_preprocess.py) is launched with use_pdl=True on SM90+, so it may
# start while the previous kernel of the stream (the output projection's
# backward, which writes dout) is still running - but it had no
# griddepcontrol_wait() before its first global read: it could load a
# partially written dO and compute a wrong dpsum = rowsum(O * dO), which
# corrupts dS = P * (dP - dpsum) and so dQ and dK (observed within a few
# training steps on GB200, once in 3000+ steps on H100).  The kernel emits
# griddepcontrol.launch_dependents after its O/dO loads.  The fix calls
# cute.arch.griddepcontrol_wait() before the first global read.
# Modelled: one 64-row m-block per CTA, four warps each a one-warp
# instance with 16 rows (the vectorized row loads); dO is the tensor the
# preceding grid writes (lm.grid_dependency); O, LSE come from the forward
# pass, finished long before; the preprocess outputs dpsum, lse_log2 and
# the zeroed dQaccum rows.  Left out: the seqlen bound of the last m-block
# and the varlen offsets.
# Fix: fa_cute_bwd_preprocess_pdl_no_wait_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def fa_cute_bwd_preprocess_pdl_no_wait(lm, O: LM.gmem, dO: LM.gmem, LSE: LM.gmem, dPsum: LM.gmem,
                                       LSElog2: LM.gmem, dQaccum: LM.gmem):
    lm.grid_dependency(dO)
    o    = lm.regs(shape=(16, 128), dtype=lm.f32)
    do   = lm.regs(shape=(16, 128), dtype=lm.f32)
    dps  = lm.regs(shape=(16, 1), dtype=lm.f32)
    lse  = lm.regs(shape=(16, 1), dtype=lm.f32)
    zero = lm.regs(shape=(16, 128), dtype=lm.f32)

    rows = lm.role(warps=[0, 1, 2, 3], group=1)

    with rows:
        m0 = 64 * lm.block_idx(0) + 16 * lm.instance()
        # BUG: no griddepcontrol_wait() before the first global read
        lm.copy(o, O, coords=(m0, 0))
        lm.copy(do, dO, coords=(m0, 0))                     # expect-error: sync.grid-dependency
        lm.launch_dependents()
        lm.binary(o, o, do, op="mul")
        lm.reduce(dps, o, op="sum", axis=1)                 # dpsum = rowsum(O * dO)
        lm.copy(dPsum, dps, coords=(m0, 0))
        lm.copy(lse, LSE, coords=(m0, 0))
        lm.binary(lse, lse, 1.4426950408889634, op="mul")   # LSE * log2(e)
        lm.copy(LSElog2, lse, coords=(m0, 0))
        lm.fill(zero, 0.0)
        lm.copy(dQaccum, zero, coords=(m0, 0))
