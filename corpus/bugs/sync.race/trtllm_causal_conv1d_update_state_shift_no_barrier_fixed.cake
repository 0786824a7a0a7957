# FIXED: trtllm_causal_conv1d_update_state_shift_no_barrier.cake as
# NVIDIA/TensorRT-LLM PR #17539 fixes it (and sgl-project/sglang PR #16899):
# the tl.debug_barrier() (a __syncthreads over the program's 4 warps) is
# back between the loads of conv_state and x and the store of the shifted
# state, so every warp has read its taps and its source row before any warp
# overwrites them.
# expect: pass
@cake.schedule(target="sm_90a")
def causal_conv1d_update_state_shift_barrier(lm, Conv: LM.gmem, X: LM.gmem):
    taps = lm.regs(shape=(3, 32), dtype=lm.f32)     # col0, col1, col2 of this warp's features
    row  = lm.regs(shape=(1, 128), dtype=lm.f32)    # this warp's row of the 2-D tile

    prog = lm.role(warps=[0, 1, 2, 3], group=1)
    bar  = lm.named_barrier(roles=[prog])

    with prog:
        w = lm.instance()
        lm.copy(taps, Conv, coords=(0, 32 * w))                     # STEP 1 (1-D layout)
        if w < 2:
            lm.copy(row, Conv, coords=(w + 1, 0))                   # conv_state[idx_tokens + seqlen]
        if w == 2:
            lm.copy(row, X, coords=(0, 0))                          # loaded_x (token idx_tokens - VAL = 0)
        lm.sync(bar)                                                # tl.debug_barrier()
        if w < 3:
            lm.copy(Conv, row, coords=(w, 0))                       # tl.store(conv_state[idx_tokens])
