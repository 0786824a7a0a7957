# BUG (sync.race): PaddlePaddle/Paddle issue #46974, fixed by PR #47233
# ("fix reduce_any kernel data race on sharedMem"): BlockXReduce in
# paddle/phi/kernels/primitive/compute_primitives.h (the block reduction of
# the kernel primitives the reduce kernels use) was
#     __syncthreads();
#     __shared__ T shared[2 * kWarpSize];
#     if (blockDim.x > kWarpSize) {
#       val = WarpReduce(val, reducer);
#       if (lane == 0) shared[wid] = val;              // one partial per warp
#       __syncthreads();
#       val = shared[bid * block_dim_x + lane];        // every warp reads them
#     }
#     for (stride = 1; stride < block_dim_x; stride <<= 1)
#       val = reducer(val, CudaShuffleDownSync(mask, val, stride));
#     if (threadIdx.x == 0) shared[threadIdx.y] = val; // the block's result
#     __syncthreads();
#     return shared[threadIdx.y];
# Thread 0 writes the result over shared[0] - warp 0's partial - while the
# other warps may still be reading the partials: a lagging warp adds the
# result instead of warp 0's partial.  The shuffles only synchronize inside
# a warp; the PR's analysis names this read and this write, and the fix is a
# __syncthreads() before `shared[threadIdx.y] = val`.
# Modelled: blockDim = (128, 1) (block_dim_x = 4 warps, bid = 0), each warp
# a one-warp instance, __syncthreads() a named barrier over all of them,
# shared as one 64-float tile; lane l of every warp reads shared[l], of
# which lanes 0..3 carry the partials the shuffle tree combines (the other
# lanes' values are never used: the read is of shared[0:4]).  Left out: the
# warp-level reductions and shuffles (registers only), the reduce op.
# Fix: paddle_block_x_reduce_result_overwrites_partials_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_80")
def paddle_block_x_reduce_result_overwrites_partials(lm, X: LM.gmem, Out: LM.gmem):
    pool   = lm.smem(256)
    shared = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=1)
    val    = lm.regs(shape=(1, 1), dtype=lm.f32)
    parts  = lm.regs(shape=(1, 4), dtype=lm.f32)
    res    = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        lm.copy(val, X, coords=(lm.block_idx(0), w))    # WarpReduce(val) of this warp
        lm.sync(bar)                                    # the leading __syncthreads()
        lm.copy(shared[0][:, w:w + 1], val)             # if (lane == 0) shared[wid] = val
        lm.sync(bar)
        # val = shared[bid * block_dim_x + lane]
        lm.copy(parts, shared[0][:, 0:4])                                 # expect-error: sync.race
        lm.reduce(val, parts, op="sum", axis=1)         # the shuffle-down tree
        if w == 0:
            # if (threadIdx.x == 0) shared[threadIdx.y] = val
            lm.copy(shared[0][:, 0:1], val)                               # expect-error: sync.race
        lm.sync(bar)
        lm.copy(res, shared[0][:, 0:1])                 # return shared[threadIdx.y]
        lm.copy(Out, res, coords=(lm.block_idx(0), w))
