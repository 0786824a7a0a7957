# The Xe2 chunk-prefill FMHA of vllm-project/vllm-xpu-kernels (the kernel of
# PR #312, corpus/bugs/sync.deadlock/vllm_xpu_fmha_causal_per_subgroup_k_blocks.cake)
# in a third form, a family rung rather than a published fix: each
# subgroup keeps its own tight causal bound k_blocks (its 16 query rows,
# bottom-right aligned: row r sees keys below r + 1 + seq_k - seq_q), loads
# its K blocks straight from global memory into its registers (Xe2 2D block
# loads), and so needs no work-group barrier in the K loop: the barrier
# moves to where the subgroups first exchange data, the epilogue, which
# stages the O tile in shared local memory and has subgroup 0 store it.
# Every subgroup reaches that barrier once, whatever its trip count (0
# where its rows see no key, seq_q - seq_k >= 16 * w + 16: its rows are
# zeros), so the schedule is correct for every seq_q, seq_k.  A work-group
# of 4 subgroups (a 64-row query tile; the PR's pair has 8 and 128 rows:
# with 8 the proof needs 3.8e9 work units, over the default budget, for
# the 9 outcome vectors of the warps' first-iteration guards).  Modelled
# on sm_80 as the PR's pair is (a subgroup as a warp, the work-group
# barrier as one named barrier over the warps).  The proof takes each
# warp's K loop with its own trip count (docs/z3.md "Per-instance trip
# counts of private loops").
# Bug twin: corpus/bugs/sync.deadlock/xpu_fmha_per_subgroup_bounds_empty_rows_skip_barrier.cake
# (a subgroup with no K block leaves before the barrier).
# expect: pass
@cake.schedule(target="sm_80")
def xpu_fmha_causal_per_subgroup_bounds_slm_epilogue(lm, Kc: LM.gmem, O: LM.gmem, seq_q: LM.i32, seq_k: LM.i32):
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
        lm.copy(o_s[w], acc)
        lm.sync(wg)
        if w == 0:
            for r in lm.range(0, 4):
                lm.copy(ot, o_s[r])
                lm.copy(O, ot, coords=(64 * lm.block_idx(0) + 16 * r, 0))
