# BUG (sync.deadlock): vllm-project/vllm-xpu-kernels PR #312 ("Fix
# workgroup barrier deadlock", 2026-04-24; the same shape is intel/sycl-tla
# PR #830 for the new FMHA forward mainloop).  The Xe2 chunk-prefill FMHA
# kernel runs one work-group of 8 subgroups over a TileQ = 128 query tile,
# each subgroup 16 query rows.  Its K loop holds a work-group barrier
# (barrier_arrive / barrier_wait with ScopeWorkgroup, "to keep threads
# together") every iteration, but under the causal mask the loop bounds
# k_blocks are computed per subgroup from the subgroup's own row
# coordinate, so subgroups run different trip counts: with seq_q = 129,
# seq_k = 463, tile_k = 64, subgroup 0 runs 6 K blocks and subgroup 7 runs
# 8, and the subgroups that still loop wait at the barrier for ones that
# left it (a hang).  The PR keeps the tight per-subgroup bounds for the
# masking but makes the loop's trip count uniform: the bounds are reduced
# across the work-group (the largest, subgroup 7's).
# Modelled on sm_80 (a subgroup as a warp, the work-group barrier as one
# named barrier over the 8 warps, the split arrive/wait as one lm.sync):
# the causal limit is bottom-right aligned, row r sees keys below
# r + 1 + seq_k - seq_q; each K block's 64 keys are loaded into registers
# and accumulated into the subgroup's rows (the QK^T / PV compute, as an
# add into a zero-filled f32 accumulator stored at the end).  Left out: the V tile, the
# prefetches, the softmax.
# Fix: vllm_xpu_fmha_causal_per_subgroup_k_blocks_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def vllm_xpu_fmha_causal_per_subgroup_k_blocks(lm, Kc: LM.gmem, O: LM.gmem, seq_q: LM.i32, seq_k: LM.i32):
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
            k_blocks = lm.cdiv(min(seq_k, q0 + 16 + seq_k - seq_q), 64)
            for kb in lm.range(0, k_blocks):
                lm.copy(kt, Kc, coords=(q0, kb * 64))
                lm.binary(acc, acc, kt, op="add")
                lm.sync(wg)  # expect-error: sync.deadlock
            lm.copy(O, acc, coords=(q0, 0))
