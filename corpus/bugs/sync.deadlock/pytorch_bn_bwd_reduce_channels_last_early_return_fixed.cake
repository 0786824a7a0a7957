# FIXED form of pytorch_bn_bwd_reduce_channels_last_early_return.cake
# (pytorch/pytorch PR #172554): no early return; a row past reduction_size
# loads nothing and contributes zeros, and every warp reaches every
# __syncthreads() of merge_block_vertical_backward.  Same model as the
# broken file.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_bn_bwd_reduce_channels_last_early_return_fixed(lm, Input: LM.gmem, GradOut: LM.gmem,
                                                           SumDy: LM.gmem, SumDyXmu: LM.gmem,
                                                           reduction_size: LM.i32):
    lm.assume(reduction_size >= 1)
    pool   = lm.smem(1024)
    sh_dy  = pool.view(offset=0,   shape=(1, 32), dtype=lm.f32, stages=4)   # shmem_sum_dy
    sh_xmu = pool.view(offset=512, shape=(1, 32), dtype=lm.f32, stages=4)   # shmem_sum_dy_xmu
    dy     = lm.regs(shape=(1, 32), dtype=lm.f32)
    xmu    = lm.regs(shape=(1, 32), dtype=lm.f32)
    o_dy   = lm.regs(shape=(1, 32), dtype=lm.f32)
    o_xmu  = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w  = lm.instance()                               # threadIdx.y = m_offset
        c0 = 32 * lm.block_idx(0)                        # c_offset of lane 0
        lm.fill(dy, 0.0)
        lm.fill(xmu, 0.0)
        if w < reduction_size:                           # the fix: mask, no return
            lm.copy(dy, GradOut, coords=(w, c0))
            lm.copy(xmu, Input, coords=(w, c0))          # x - mean
            lm.binary(xmu, xmu, dy, op="mul")            # dy * (x - mean)
        # merge_block_vertical_backward, offset = 2
        lm.copy(sh_dy[w], dy)
        lm.copy(sh_xmu[w], xmu)
        lm.sync(bar)
        if w < 2:
            lm.copy(o_dy, sh_dy[w + 2])
            lm.copy(o_xmu, sh_xmu[w + 2])
            lm.binary(dy, dy, o_dy, op="add")
            lm.binary(xmu, xmu, o_xmu, op="add")
        lm.sync(bar)
        # offset = 1
        if w < 2:
            lm.copy(sh_dy[w], dy)
            lm.copy(sh_xmu[w], xmu)
        lm.sync(bar)
        if w < 1:
            lm.copy(o_dy, sh_dy[w + 1])
            lm.copy(o_xmu, sh_xmu[w + 1])
            lm.binary(dy, dy, o_dy, op="add")
            lm.binary(xmu, xmu, o_xmu, op="add")
        lm.sync(bar)
        if w == 0:
            lm.copy(SumDy, dy, coords=(0, c0))
            lm.copy(SumDyXmu, xmu, coords=(0, c0))
