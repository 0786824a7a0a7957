# BUG (sync.race): NVIDIA/Megatron-LM issue #4640 ("Flaky:
# TestFusedApplyMLARope::test_forward_backward_for_q[thd] backward mismatch
# exceeds bf16 tolerances", 2026-05-06: 31 of 786,432 gradient elements off
# by up to 3.0, passing on rerun), fixed by PR #5963 ("Fix fused MLA Q-RoPE
# in-place load/store races", 2026-07-22, approved 2026-09-22; PR #5981 tried
# num_warps=1 instead).  megatron/core/fusions/fused_mla_yarn_rope_apply.py,
# the Triton kernel rotary_bwd_q_kernel: "converts the RoPE gradient from
# split layout to interleaved layout in place.  Because the source and
# destination regions overlap, a multi-warp program may write output before
# another warp has finished reading its source data" (PR #5981).  PR #5963
# "adds one unconditional tl.debug_barrier() after the source loads and
# before the first overlapping store in each kernel"
# (megatron_mla_rope_bwd_q_inplace_interleave_no_barrier_fixed.cake).
# Written in CAKE IR: one head's 64-wide rope part of dQ (row h of G), one
# program of 4 warps (one-warp instances); warp w owns the rotary pairs i in
# 8 w .. 8 w + 7 on both sides: it loads the split halves dq[i] (column i)
# and dq[32 + i] (column 32 + i) and stores the interleaved pairs at columns
# 2 i, 2 i + 1, i.e. 16 w .. 16 w + 15.  Even with the same pairs per warp,
# warp 1's store of columns 16..31 overwrites the x-half that warps 2 and 3
# still have to load.  The register interleave and the cos/sin multiply are
# a copy into the two halves of the output fragment (stand-in).
# expect: sync.race
@cake.schedule(target="sm_90a")
def mla_rope_bwd_q_inplace(lm, G: LM.gmem):
    x1  = lm.regs(shape=(1, 8), dtype=lm.f32)       # dq[..., i], split layout, first half
    x2  = lm.regs(shape=(1, 8), dtype=lm.f32)       # dq[..., 32 + i], second half
    out = lm.regs(shape=(1, 16), dtype=lm.f32)      # interleaved pairs (2 i, 2 i + 1)

    prog = lm.role(warps=[0, 1, 2, 3], group=1)

    with prog:
        w = lm.instance()
        h = lm.block_idx(0)
        lm.copy(x1, G, coords=(h, 8 * w))                          # expect-error: sync.race
        lm.copy(x2, G, coords=(h, 32 + 8 * w))                     # expect-error: sync.race
        lm.copy(out[:, 0:8], x1)                                   # rotate + interleave (stand-in)
        lm.copy(out[:, 8:16], x2)
        # BUG: no tl.debug_barrier() between the loads and the in-place store
        lm.copy(G, out, coords=(h, 16 * w))                        # expect-error: sync.race
