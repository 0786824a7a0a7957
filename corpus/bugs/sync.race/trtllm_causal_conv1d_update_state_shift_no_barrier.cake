# BUG (sync.race): NVIDIA/TensorRT-LLM issue #17522 ("causal_conv1d_triton
# overwrites conv_state while the convolution is still reading it", 2026-08-11),
# fixed by PR #17539 (2026-08-12: "Restore conv_state ordering barriers in the
# Triton conv kernels"); the same bug in SGLang: sgl-project/sglang issue
# #16714, PR #16899 (2026-01-11, "Revert comment out of tl.debug_barrier()").
# tensorrt_llm/_torch/modules/mamba/causal_conv1d_triton.py, the Triton kernel
# _causal_conv1d_update_kernel (the Mamba2 / GDN decode step; vLLM keeps the
# barriers live in vllm/model_executor/layers/mamba/ops/causal_conv1d.py):
#     STEP 1: col0 = tl.load(prior_tokens)          # [BLOCK_N], 1-D layout
#             col1 = tl.load(prior_tokens + 1 * stride_tok)
#             col2 = tl.load(prior_tokens + 2 * stride_tok)
#     STEP 2: conv_state = tl.load(conv_state[idx_tokens + seqlen, idx_feats])  # [NP2_STATELEN, BLOCK_N]
#             loaded_x   = tl.load(x[idx_tokens - VAL, idx_feats])
#             # tl.debug_barrier()                   <- commented out (BUG)
#             new_conv_state = tl.where(mask, conv_state, loaded_x)
#             tl.store(conv_state[idx_tokens, idx_feats], new_conv_state)
# The taps are read with a 1-D [BLOCK_N] layout and the state is shifted with
# a 2-D [NP2_STATELEN, BLOCK_N] tile; the two layouts give one feature to
# different threads, so a warp can store the shifted row over cells another
# warp has not read yet (its taps, or the row it shifts down).  The issue:
# "nothing in the program orders the two steps"; the fix restores the
# barrier between the loads and the store.
# Written in CAKE IR: the update kernel's launch (BLOCK_N = 128, num_warps =
# 4), width 4 (state_len = 3, NP2_STATELEN = 4), one decode token (seqlen =
# 1); the 4 warps are one-warp instances.  A 1-D [128] blocked layout gives
# warp w features 32 w .. 32 w + 31; the 2-D [4, 128] blocked layout gives
# warp w token row w (all 128 features).  Conv is one sequence's state
# (token rows, feature columns); the masks are the `if`s (row w + seqlen <
# state_len loads the old state, row 2 takes x, row 3 is masked out); the
# convolution itself (STEP 3-5, registers and the output store) is left out.
# expect: sync.race
@cake.schedule(target="sm_90a")
def causal_conv1d_update_state_shift(lm, Conv: LM.gmem, X: LM.gmem):
    taps = lm.regs(shape=(3, 32), dtype=lm.f32)     # col0, col1, col2 of this warp's features
    row  = lm.regs(shape=(1, 128), dtype=lm.f32)    # this warp's row of the 2-D tile

    prog = lm.role(warps=[0, 1, 2, 3], group=1)

    with prog:
        w = lm.instance()
        lm.copy(taps, Conv, coords=(0, 32 * w))                     # STEP 1 (1-D layout)  # expect-error: sync.race
        if w < 2:
            lm.copy(row, Conv, coords=(w + 1, 0))                   # conv_state[idx_tokens + seqlen]  # expect-error: sync.race
        if w == 2:
            lm.copy(row, X, coords=(0, 0))                          # loaded_x (token idx_tokens - VAL = 0)
        # BUG: no tl.debug_barrier() before the store
        if w < 3:
            lm.copy(Conv, row, coords=(w, 0))                       # tl.store(conv_state[idx_tokens])  # expect-error: sync.race
