# FIXED form of pytorch_reduce_block_y_then_x_no_barrier.cake
# (pytorch/pytorch PR #162995, "[CUDA] fix shared memory race in
# `reduce_kernel`"): a __syncthreads() between block_y_reduce and
# block_x_reduce, so no row writes shared[x + y*bdx] for the x reduction
# before every row has read it in the y reduction.  (The PR was closed
# unmerged; this is the change it proposes.)  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_reduce_block_y_then_x_no_barrier_fixed(lm, In: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(512)
    sh    = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    val   = lm.regs(shape=(1, 32), dtype=lm.f32)
    other = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        b = lm.block_idx(0)
        lm.copy(val, In, coords=(b, 32 * w))        # thread_reduce
        # block_y_reduce
        lm.copy(sh[w], val)                         # shared[offset(0)] = value
        lm.sync(bar)                                # offset = 1
        if w < 2:                                   # threadIdx.y < 1
            lm.copy(other, sh[w + 2])               # shared[offset(1)]
            lm.binary(val, val, other, op="add")
            lm.copy(sh[w], val)
        lm.sync(bar)                                # the fix
        # block_x_reduce, dim_x = 64 > warpSize
        lm.copy(sh[w], val)                         # shared[address_base] = value
        lm.sync(bar)                                # offset = 32
        if w % 2 == 0:                              # threadIdx.x < 32
            lm.copy(other, sh[w + 1])
            lm.binary(val, val, other, op="add")
            lm.copy(sh[w], val)
        lm.sync(bar)
        if w == 0:
            lm.copy(Out, val, coords=(b, 0))
