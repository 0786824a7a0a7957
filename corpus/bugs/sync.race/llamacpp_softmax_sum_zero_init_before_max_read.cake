# BUG (sync.race): ggml-org/llama.cpp PR #5853 ("cuda : fix data race in soft
# max", 2024-03-03; "compute-sanitizer reports a data race here, buf_iw is
# previously read without a synchronization").  soft_max_f32 (one block per
# row, block_size > WARP_SIZE) reduced the row maximum and then the sum of
# exps through the same shared buffer buf_iw[WARP_SIZE]:
#     max_val = warp_reduce_max(max_val);
#     if (warp_id == 0) buf_iw[lane_id] = -INFINITY;
#     __syncthreads();
#     if (lane_id == 0) buf_iw[warp_id] = max_val;
#     __syncthreads();
#     max_val = buf_iw[lane_id];  max_val = warp_reduce_max(max_val);
#     ... tmp += expf(vals[col] - max_val) ...
#     tmp = warp_reduce_sum(tmp);
#     if (warp_id == 0) buf_iw[lane_id] = 0.0f;      // <- no barrier before
#     __syncthreads();
#     if (lane_id == 0) buf_iw[warp_id] = tmp;
#     ...
# Warp 0, done with its maximum, zeroes the whole buffer for the sum while a
# slower warp still reads the partial maxima from it: that warp takes 0 (or
# a partial sum) as the row maximum.  The fix puts a __syncthreads() before
# warp 0's zero initialization.  (PR #26385, already in the corpus as
# llamacpp_softmax_block_reduce_max_then_sum_same_smem, is the later
# regression of the same pair of reductions without the zero fill: there
# the partial-sum store races.)
# Modelled: one row per block, 128 threads = four one-warp instances, one
# column per thread (4 * 32 columns); buf_iw as one shared 1x32 f32 tile
# (warp 0's initialization writes all of it, warp w's partial the slice
# [0:1, w:w+1]); warp reductions (shuffles) as lm.reduce on registers;
# __syncthreads() a named barrier over the block.  Left out: the mask,
# ALiBi slope and scale, the vals[] cache of wide rows.
# Fix: llamacpp_softmax_sum_zero_init_before_max_read_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_softmax_sum_zero_init_before_max_read(lm, X: LM.gmem, Dst: LM.gmem):
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
        lm.copy(allw, buf[0])                           # max_val = buf_iw[lane_id]     # expect-error: sync.race
        lm.reduce(mx, allw, op="max", axis=1)
        lm.binary(x, x, mx, op="sub")
        lm.unary(x, x, op="exp2")
        # find the sum of exps in the block: no barrier before the zero fill
        lm.reduce(part, x, op="sum", axis=1)            # warp_reduce_sum
        if w == 0:
            lm.fill(init, 0.0)
            lm.copy(buf[0], init)                       # buf_iw[lane_id] = 0.0f        # expect-error: sync.race
        lm.sync(bar)
        lm.copy(buf[0][0:1, w:w + 1], part)             # buf_iw[warp_id] = tmp
        lm.sync(bar)
        lm.copy(allw, buf[0])
        lm.reduce(sm, allw, op="sum", axis=1)
        lm.unary(sm, sm, op="recip")
        lm.binary(x, x, sm, op="mul")
        lm.copy(Dst, x, coords=(row, 32 * w))
