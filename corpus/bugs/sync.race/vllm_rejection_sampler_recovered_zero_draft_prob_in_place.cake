# BUG (sync.race): vllm-project/vllm PR #23829 ("[bugfix] [spec-decoding]
# fix data race in sample_recovered_tokens_kernel (vLLM v1)", merged
# 2025-08-28).  vllm/v1/sample/rejection_sampler.py, the Triton kernel
# sample_recovered_tokens_kernel, n-gram path (NO_DRAFT_PROBS), one program
# per draft position:
#     orig_prob = tl.load(target_probs_ptr + row * vocab_size + draft_token_id)
#     tl.store(target_probs_ptr + row * vocab_size + draft_token_id, 0)
#     prob = tl.load(target_probs_ptr + row * vocab_size + vocab_offset, ...)
#     q = tl.load(q_ptr + ...)
#     recovered_id = tl.argmax(prob / q, axis=-1)
#     tl.store(output_token_ids_ptr + row, recovered_id)
#     tl.store(target_probs_ptr + row * vocab_size + draft_token_id, orig_prob)
# "The original implementation temporarily modifies target_probs_ptr to
# zero out a token's probability before restoring it.  This is unsafe ...
# multiple GPU threads could concurrently access and modify the same memory
# address": the scalar store runs in one thread, the row is loaded by all
# warps with no barrier, so a warp may load the draft token's probability
# before it is zeroed (and pick the draft token as the recovered one), and
# another warp's scalar load of orig_prob may already see the 0 (and the
# restore writes 0 back).  Different tensor-parallel ranks then disagree on
# the verification and hang.  The PR masks the draft token in the load
# instead (vllm_rejection_sampler_recovered_zero_draft_prob_in_place_fixed.cake).
# Written in CAKE IR: a 128-entry vocabulary (PADDED_VOCAB_SIZE) over the
# program's 4 warps (one-warp instances; the 1-D blocked layout gives warp
# w entries 32 w .. 32 w + 31), the draft token a parameter (the data-
# dependent index the IR cannot read from memory), the scalar stores in
# warp 0 (Triton stores a scalar from one thread).  tl.argmax's cross-warp
# reduction goes through shared memory with a barrier (red); it orders the
# row loads before the restore, not the zeroing store before them.
# expect: sync.race
@cake.schedule(target="sm_90a")
def sample_recovered_tokens_ngram(lm, T: LM.gmem, Q: LM.gmem, Out: LM.gmem, draft: LM.i32):
    lm.assume(draft >= 0)
    lm.assume(draft < 128)
    pool = lm.smem(1024)
    part = pool.view(offset=0, shape=(1, 2), dtype=lm.f32, stages=4)     # per-warp (max, index)
    orig = lm.regs(shape=(1, 1), dtype=lm.f32)
    zero = lm.regs(shape=(1, 1), dtype=lm.f32)
    prob = lm.regs(shape=(1, 32), dtype=lm.f32)
    q    = lm.regs(shape=(1, 32), dtype=lm.f32)
    best = lm.regs(shape=(1, 2), dtype=lm.f32)
    rid  = lm.regs(shape=(1, 1), dtype=lm.i32)

    prog = lm.role(warps=[0, 1, 2, 3], group=1)
    red  = lm.named_barrier(roles=[prog])

    with prog:
        w = lm.instance()
        row = lm.block_idx(0)                                      # start_idx + pos
        lm.copy(orig, T, coords=(row, draft))                      # orig_prob (every thread)  # expect-error: sync.race
        if w == 0:
            lm.fill(zero, 0.0)
            lm.copy(T, zero, coords=(row, draft))                  # BUG: zero the draft token in place  # expect-error: sync.race
        lm.copy(prob, T, coords=(row, 32 * w))                     # the row, this warp's entries  # expect-error: sync.race
        lm.copy(q, Q, coords=(row, 32 * w))
        lm.binary(prob, prob, q, op="div")
        lm.reduce(best, prob, op="max", axis=1)                    # this warp's best (stand-in for argmax)
        lm.copy(part[w], best)
        lm.sync(red)                                               # tl.argmax's cross-warp step
        lm.copy(best, part[0])
        if w == 0:
            lm.copy(rid, best[:, 1:2])
            lm.copy(Out, rid, coords=(row, 0))                     # recovered_id
            lm.copy(T, orig, coords=(row, draft))                  # restore
