# FIXED form of paddle_block_x_reduce_result_overwrites_partials.cake
# (PaddlePaddle/Paddle PR #47233): a __syncthreads() before
# `if (threadIdx.x == 0) shared[threadIdx.y] = val`, so every warp has read
# the partials before thread 0 writes the block's result over shared[0].
# expect: pass
@cake.schedule(target="sm_80")
def paddle_block_x_reduce_sync_before_result(lm, X: LM.gmem, Out: LM.gmem):
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
        lm.copy(parts, shared[0][:, 0:4])               # val = shared[bid * block_dim_x + lane]
        lm.reduce(val, parts, op="sum", axis=1)         # the shuffle-down tree
        lm.sync(bar)                                    # the fix (PR #47233)
        if w == 0:
            lm.copy(shared[0][:, 0:1], val)             # if (threadIdx.x == 0) shared[threadIdx.y] = val
        lm.sync(bar)
        lm.copy(res, shared[0][:, 0:1])                 # return shared[threadIdx.y]
        lm.copy(Out, res, coords=(lm.block_idx(0), w))
