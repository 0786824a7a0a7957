# BUG (sync.race): NVIDIA/TensorRT-LLM issue #18338, PR #18339 ("Fix
# barrier-divergence races in the Blackwell CuTe DSL GVR top-k decode
# kernel", tensorrt_llm/_torch/cute_dsl_kernels/blackwell/top_k/
# gvr_topk_decode.py).  In _run_phases, thread 0 publishes the Phase-1
# bracket in shared memory (s_thr), a barrier, and every thread reads it
# (v_lo = s_thr[1]; v_hi = s_thr[2]).  When every gathered value lands on
# one value (the all-zeros pre_idx of the production cold start) thread 0
# then rewrites the bracket to a synthetic one, followed by a barrier.
# Nothing orders the other warps' reads of the old bracket before thread
# 0's rewrite: "without this barrier a straggler warp can read the
# already-rewritten synthetic bracket, evaluate the degenerate condition
# differently, and skip the guarded barrier" (corrupt output, illegal
# memory accesses on B200).  The PR inserts cute.arch.barrier() between
# the block-wide reads of each leader-published scalar and the leader's
# rewrite (seven sites); this pair models the first (the hot path):
# trtllm_gvr_topk_bracket_rewrite_no_barrier_fixed.cake.
# Written in CAKE IR: 4 warps (the kernel's CTA has more), each its own
# instance, cute.arch.barrier() a named barrier over all of them; s_thr as
# a 4-float view; the degenerate case taken by every warp (the cold start),
# so the guarded barrier is reached by all; Phase 2 reads the rewritten
# bracket and each warp writes its part of the result.  Left out: the
# gather, the histogram phases and the other six sites.
# expect: sync.race
@cake.schedule(target="sm_100a")
def trtllm_gvr_topk_bracket_rewrite_no_barrier(lm, Vals: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(1024)
    s_thr = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages=1)
    b     = lm.regs(shape=(1, 4), dtype=lm.f32)
    v     = lm.regs(shape=(1, 4), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    row = lm.block_idx(0)

    with warps:
        w = lm.instance()
        if w == 0:
            lm.copy(b, Vals, coords=(row, 0))
            lm.copy(s_thr[0], b)                   # Phase 1: tid0 publishes the bracket
        lm.sync(bar)
        lm.copy(v, s_thr[0])                       # v_lo = s_thr[1]; v_hi = s_thr[2]     # expect-error: sync.race
        # BUG: no barrier before the rewrite
        if w == 0:
            lm.fill(b, 0.0)
            lm.copy(s_thr[0], b)                   # degenerate: tid0 rewrites the bracket  # expect-error: sync.race
        lm.sync(bar)                               # the guarded barrier
        lm.copy(v, s_thr[0])                       # Phase 2 reads the synthetic bracket
        lm.copy(Out, v, coords=(row, 4 * w))
