# FIXED form of tvm_thread_allreduce_red_buf_rewrite_before_broadcast_read.cake
# (apache/tvm PR #2937): an explicit __syncthreads() before the write into
# red_buf, so no thread starts the next reduction while another still reads
# the previous result from red_buf[0].
# expect: pass
@cake.schedule(target="sm_80")
def tvm_thread_allreduce_red_buf_rewrite_before_broadcast_read_fixed(lm, X: LM.gmem, Out: LM.gmem,
                                                                   n_rows: LM.i32):
    lm.assume(n_rows > 0)
    pool    = lm.smem(512)
    red_buf = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 32), dtype=lm.f32)
    other = lm.regs(shape=(1, 32), dtype=lm.f32)
    res   = lm.regs(shape=(1, 1),  dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        for r in lm.range(0, n_rows):
            lm.copy(x, X, coords=(r, 32 * w))
            lm.sync(bar)                                    # the fix: every read of the last row is done
            lm.copy(red_buf[w], x)
            lm.sync(bar)
            if w < 2:                                       # tid < 64: red_buf[tid] += red_buf[tid + 64]
                lm.copy(part, red_buf[w])
                lm.copy(other, red_buf[w + 2])
                lm.binary(part, part, other, op="add")
                lm.copy(red_buf[w], part)
            lm.sync(bar)
            if w == 0:                                      # tid < 32: the warp-synchronous steps
                lm.copy(part, red_buf[0])
                lm.copy(other, red_buf[1])
                lm.binary(part, part, other, op="add")
                lm.copy(red_buf[0], part)
            lm.sync(bar)
            lm.copy(res, red_buf[0][0:1, 0:1])
            lm.binary(x, x, res, op="div")
            lm.copy(Out, x, coords=(r, 32 * w))
