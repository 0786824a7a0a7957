# FIXED: vllm_rejection_sampler_recovered_zero_draft_prob_in_place.cake as
# vllm-project/vllm PR #23829 fixes it: target_probs is no longer written;
# the draft token's probability is masked out in the load
#     prob = tl.load(target_probs_ptr + row * vocab_size + vocab_offset,
#                    mask=(vocab_offset < vocab_size) & (vocab_offset != draft_token_id),
#                    other=0)
# so every warp reads the row as the previous kernel left it and nothing
# needs restoring.  (Written with the masked entry set to 0 in registers:
# the IR has no masked load; the mask reads no memory.)
# expect: pass
# lower: unsupported (column slices of 1x32 register fragments as fill / reduce operands, the masked entry and the best pair: the lowering spreads a fragment's columns over the instance's 32 threads)
@cake.schedule(target="sm_90a")
def sample_recovered_tokens_ngram_masked(lm, T: LM.gmem, Q: LM.gmem, Out: LM.gmem, draft: LM.i32):
    lm.assume(draft >= 0)
    lm.assume(draft < 128)
    pool = lm.smem(1024)
    part = pool.view(offset=0, shape=(1, 2), dtype=lm.f32, stages=4)     # per-warp (max, index)
    prob = lm.regs(shape=(1, 32), dtype=lm.f32)
    q    = lm.regs(shape=(1, 32), dtype=lm.f32)
    best = lm.regs(shape=(1, 2), dtype=lm.f32)
    rid  = lm.regs(shape=(1, 1), dtype=lm.i32)

    prog = lm.role(warps=[0, 1, 2, 3], group=1)
    red  = lm.named_barrier(roles=[prog])

    with prog:
        w = lm.instance()
        row = lm.block_idx(0)                                      # start_idx + pos
        lm.copy(prob, T, coords=(row, 32 * w))                     # masked load: vocab_offset != draft_token_id
        if draft // 32 == w:
            lm.fill(prob[:, 0:1], 0.0)                             # the masked entry (stand-in column)
        lm.copy(q, Q, coords=(row, 32 * w))
        lm.binary(prob, prob, q, op="div")
        lm.reduce(best, prob, op="max", axis=1)                    # this warp's best (stand-in for argmax)
        lm.copy(part[w], best)
        lm.sync(red)                                               # tl.argmax's cross-warp step
        lm.copy(best, part[0])
        if w == 0:
            lm.copy(rid, best[:, 1:2])
            lm.copy(Out, rid, coords=(row, 0))                     # recovered_id
