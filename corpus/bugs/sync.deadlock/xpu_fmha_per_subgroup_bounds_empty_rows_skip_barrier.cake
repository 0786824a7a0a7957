# BUG (sync.deadlock): a twin of
# corpus/attention/sm80_xpu_fmha_causal_per_subgroup_bounds_slm_epilogue.cake
# (the Xe2 chunk-prefill FMHA of vllm-project/vllm-xpu-kernels PR #312 with
# each subgroup's tight causal K loop and the work-group barrier after it,
# before the shared-local-memory epilogue), where a subgroup whose rows see
# no key (k_blocks <= 0: seq_q - seq_k >= 16 * w + 16) skips its epilogue,
# the barrier with it, as a kernel that returns early on an empty causal
# range does.  Where some subgroups have K blocks and others none (seq_q =
# 17, seq_k = 1: subgroup 0 none, 1..3 one), the others wait at the
# barrier for subgroup 0, which never comes (a hang).  (Where no subgroup
# has a block, none waits: the fault needs the counts to differ.)
# Fix: the fixed twin above (every subgroup reaches the barrier; its rows
# of the tile are zeros).
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def xpu_fmha_per_subgroup_bounds_empty_rows_skip_barrier(lm, Kc: LM.gmem, O: LM.gmem, seq_q: LM.i32, seq_k: LM.i32):
    lm.assume(seq_q >= 1)
    lm.assume(seq_k >= 1)
    pool = lm.smem(16384)
    o_s  = pool.view(offset=0, shape=(16, 64), dtype=lm.f32, stages=4)
    kt   = lm.regs(shape=(16, 64), dtype=lm.f16)
    acc  = lm.regs(shape=(16, 64), dtype=lm.f32)
    ot   = lm.regs(shape=(16, 64), dtype=lm.f32)
    sg   = lm.role(warps=[0, 1, 2, 3], group=1)
    wg   = lm.named_barrier(roles=[sg])
    with sg:
        w  = lm.instance()
        q0 = 64 * lm.block_idx(0) + 16 * w
        lm.fill(acc, 0.0)
        k_blocks = lm.cdiv(min(seq_k, q0 + 16 + seq_k - seq_q), 64)
        for kb in lm.range(0, k_blocks):
            lm.copy(kt, Kc, coords=(q0, kb * 64))
            lm.binary(acc, acc, kt, op="add")
        if k_blocks > 0:
            lm.copy(o_s[w], acc)
            lm.sync(wg)  # expect-error: sync.deadlock
            if w == 0:
                for r in lm.range(0, 4):
                    lm.copy(ot, o_s[r])
                    lm.copy(O, ot, coords=(64 * lm.block_idx(0) + 16 * r, 0))
