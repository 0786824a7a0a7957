# FIXED form of llamacpp_softmax_sum_zero_init_before_max_read.cake
# (ggml-org/llama.cpp PR #5853): a __syncthreads() before warp 0 zeroes
# buf_iw for the sum, so every warp has read the partial maxima first.
# Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_softmax_sum_zero_init_before_max_read_fixed(lm, X: LM.gmem, Dst: LM.gmem):
    pool  = lm.smem(256)
    buf   = pool.view(offset=0, shape=(1, 32), dtype=lm.f32)       # buf_iw[WARP_SIZE]
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    init  = lm.regs(shape=(1, 32), dtype=lm.f32)
    allw  = lm.regs(shape=(1, 32), dtype=lm.f32)
    mx    = lm.regs(shape=(1, 1), dtype=lm.f32)
    sm    = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w   = lm.instance()
        row = lm.block_idx(0)
        lm.copy(x, X, coords=(row, 32 * w))
        # find the max value in the block
        lm.reduce(part, x, op="max", axis=1)            # warp_reduce_max
        if w == 0:
            lm.fill(init, -3.0e38)
            lm.copy(buf[0], init)                       # buf_iw[lane_id] = -INFINITY
        lm.sync(bar)
        lm.copy(buf[0][0:1, w:w + 1], part)             # buf_iw[warp_id] = max_val
        lm.sync(bar)
        lm.copy(allw, buf[0])                           # max_val = buf_iw[lane_id]
        lm.reduce(mx, allw, op="max", axis=1)
        lm.binary(x, x, mx, op="sub")
        lm.unary(x, x, op="exp2")
        # find the sum of exps in the block
        lm.reduce(part, x, op="sum", axis=1)            # warp_reduce_sum
        lm.sync(bar)                                    # the fix
        if w == 0:
            lm.fill(init, 0.0)
            lm.copy(buf[0], init)                       # buf_iw[lane_id] = 0.0f
        lm.sync(bar)
        lm.copy(buf[0][0:1, w:w + 1], part)             # buf_iw[warp_id] = tmp
        lm.sync(bar)
        lm.copy(allw, buf[0])
        lm.reduce(sm, allw, op="sum", axis=1)
        lm.unary(sm, sm, op="recip")
        lm.binary(x, x, sm, op="mul")
        lm.copy(Dst, x, coords=(row, 32 * w))
