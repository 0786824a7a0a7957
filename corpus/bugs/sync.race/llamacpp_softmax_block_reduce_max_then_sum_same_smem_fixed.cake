# FIXED form of llamacpp_softmax_block_reduce_max_then_sum_same_smem.cake
# (ggml-org/llama.cpp PR #26385): a __syncthreads() between the two
# block_reduce calls that share buf_iw, so no warp stores its partial sum
# while another still reads the partial maxima.  Same model as the broken
# file.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_softmax_block_reduce_max_then_sum_same_smem_fixed(lm, X: LM.gmem, Dst: LM.gmem):
    pool  = lm.smem(256)
    buf   = pool.view(offset=0, shape=(1, 4), dtype=lm.f32)        # buf_iw[WARP_SIZE] (4 used)
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw  = lm.regs(shape=(1, 4), dtype=lm.f32)
    mx    = lm.regs(shape=(1, 1), dtype=lm.f32)
    sm    = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w   = lm.instance()
        row = lm.block_idx(0)
        lm.copy(x, X, coords=(row, 32 * w))
        # block_reduce<MAX>
        lm.reduce(part, x, op="max", axis=1)            # warp_reduce
        lm.copy(buf[0][0:1, w:w + 1], part)             # shared_vals[warp_id] = val
        lm.sync(bar)
        lm.copy(allw, buf[0])                           # val = shared_vals[lane_id]
        lm.reduce(mx, allw, op="max", axis=1)
        # tmp += expf(x - max)
        lm.binary(x, x, mx, op="sub")
        lm.unary(x, x, op="exp2")
        lm.sync(bar)                                    # the fix
        # block_reduce<SUM>
        lm.reduce(part, x, op="sum", axis=1)
        lm.copy(buf[0][0:1, w:w + 1], part)
        lm.sync(bar)
        lm.copy(allw, buf[0])
        lm.reduce(sm, allw, op="sum", axis=1)
        lm.unary(sm, sm, op="recip")
        lm.binary(x, x, sm, op="mul")
        lm.copy(Dst, x, coords=(row, 32 * w))
