# FIXED: trtllm_gvr_topk_bracket_rewrite_no_barrier.cake as
# NVIDIA/TensorRT-LLM PR #18339 fixes it: a cute.arch.barrier() between the
# block-wide reads of the Phase-1 bracket and thread 0's rewrite, so every
# warp has read the old bracket before it changes.
# expect: pass
@cake.schedule(target="sm_100a")
def trtllm_gvr_topk_bracket_rewrite_barrier(lm, Vals: LM.gmem, Out: LM.gmem):
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
        lm.copy(v, s_thr[0])                       # v_lo = s_thr[1]; v_hi = s_thr[2]
        lm.sync(bar)                               # the fix: every read before the rewrite
        if w == 0:
            lm.fill(b, 0.0)
            lm.copy(s_thr[0], b)                   # degenerate: tid0 rewrites the bracket
        lm.sync(bar)                               # the guarded barrier
        lm.copy(v, s_thr[0])                       # Phase 2 reads the synthetic bracket
        lm.copy(Out, v, coords=(row, 4 * w))
