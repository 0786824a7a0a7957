# BUG (sync.race): apache/tvm PR #2937 ("[TEXPR][PASS] Fix thread all reduce
# to avoid write after read hazzard", merged 2019-03-31, fixing
# dmlc/tvm issue #2767).  src/pass/lower_thread_allreduce.cc lowers a
# cross-thread reduction (tvm_thread_allreduce) to a shared-memory tree:
#     red_buf[threadIdx.x] = x; __syncthreads();
#     ... tree steps, each followed by __syncthreads() ...
#     result = red_buf[0];
# When the reduction sits inside a loop (one reduction per row of a
# softmax or norm), the next iteration's red_buf[threadIdx.x] = x runs with
# no barrier after the broadcast read of the previous iteration: thread 0
# overwrites red_buf[0] while other warps may still be reading it ("the bug
# was rare but can affect some of the code").  The fix inserts an explicit
# __syncthreads() before the write into the shared buffer.
# Modelled: a 128-thread reduction group (4 warps, each warp a one-warp
# instance; __syncthreads() is a named barrier over all of them), red_buf
# as one 32-float slot per warp (red_buf[tid] is the slot of tid's warp),
# a loop over n_rows rows of X, each reduced with a sum and divided by it.
# The tree for 128 threads: warps 0 and 1 add the slots of warps 2 and 3,
# then warp 0 folds slot 1 into slot 0 (the warp-synchronous steps inside
# warp 0 are registers only here).  Left out: the row max pass.
# Fix: tvm_thread_allreduce_red_buf_rewrite_before_broadcast_read_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_80")
def tvm_thread_allreduce_red_buf_rewrite_before_broadcast_read(lm, X: LM.gmem, Out: LM.gmem, n_rows: LM.i32):
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
            # BUG: no __syncthreads() here: the last row's readers of red_buf[0] may not be done
            lm.copy(red_buf[w], x)                          # expect-error: sync.race
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
            lm.copy(res, red_buf[0][0:1, 0:1])              # expect-error: sync.race
            lm.binary(x, x, res, op="div")
            lm.copy(Out, x, coords=(r, 32 * w))
