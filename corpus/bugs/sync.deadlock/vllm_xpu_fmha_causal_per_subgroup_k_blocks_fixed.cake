# FIXED form of vllm_xpu_fmha_causal_per_subgroup_k_blocks.cake
# (vllm-project/vllm-xpu-kernels PR #312): the loop's trip count is the
# work-group's (the per-subgroup bounds reduced across the work-group: the
# last subgroup's, whose rows see the most keys), so every subgroup
# reaches the barrier every iteration.  A subgroup's own tight causal
# bound then only feeds the element mask of the blocks past it (the
# masked scores; not modelled), which is why those blocks are still
# loaded here.  (Written with the guard `if kb < k_blocks:` around the
# load, the schedule is as correct but its proof is unknown:
# docs/known-limits.md "A guard that reads the loop variable and the
# parameters".)
# expect: pass
@cake.schedule(target="sm_80")
def vllm_xpu_fmha_causal_per_subgroup_k_blocks_fixed(lm, Kc: LM.gmem, O: LM.gmem, seq_q: LM.i32, seq_k: LM.i32):
    lm.assume(seq_q >= 1)
    lm.assume(seq_k >= seq_q)
    kt   = lm.regs(shape=(16, 64), dtype=lm.f16)
    acc  = lm.regs(shape=(16, 64), dtype=lm.f32)
    sg   = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    wg   = lm.named_barrier(roles=[sg])
    with sg:
        w  = lm.instance()
        q0 = 128 * lm.block_idx(0) + 16 * w
        if 128 * lm.block_idx(0) < seq_q:
            lm.fill(acc, 0.0)
            k_blocks_wg = lm.cdiv(min(seq_k, 128 * lm.block_idx(0) + 128 + seq_k - seq_q), 64)
            for kb in lm.range(0, k_blocks_wg):
                lm.copy(kt, Kc, coords=(q0, kb * 64))
                lm.binary(acc, acc, kt, op="add")
                lm.sync(wg)
            lm.copy(O, acc, coords=(q0, 0))
