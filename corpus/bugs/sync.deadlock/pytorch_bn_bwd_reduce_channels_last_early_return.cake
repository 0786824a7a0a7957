# BUG (sync.deadlock): pytorch/pytorch PR #172554 ("Fix deadlock caused by
# early return in batch norm backward channels-last kernel", 2026-01-15);
# the same early exit hung the SYCL port (pytorch/pytorch issue #136007,
# intel/torch-xpu-ops PR #940), and was introduced upstream by commit
# 1207745e98d740c6c275fbf80193cb537f6edf6f.
# aten/src/ATen/native/cuda/Normalization.cuh,
# batch_norm_backward_reduce_channels_last_kernel (also the path for 2-D
# (N, C) inputs):
#     int m_offset = blockIdx.y * blockDim.y + threadIdx.y;
#     int c_offset = blockIdx.x * blockDim.x + threadIdx.x;
#     if (c_offset >= stride || m_offset >= reduction_size) return;
#     ... per-thread sums of dy and dy * (x - mean) ...
#     merge_block_vertical_backward(sum_dy, sum_dy_xmu, shmem_sum_dy, shmem_sum_dy_xmu);
# merge_block_vertical_backward folds the rows of the block through shared
# memory with two __syncthreads() per step (offset = blockDim.y/2 .. 1).
# With reduction_size (N*H*W) below blockDim.y, whole warps (rows
# threadIdx.y >= reduction_size) return while the others wait for them at
# the first __syncthreads(): a hang on MUSA / SYCL / ROCm, undefined on
# NVIDIA.  The fix removes the early return; inactive threads add zeros.
# Modelled: blockDim (32, 4), gridDim.y = 1 (m_offset = threadIdx.y), four
# one-warp instances, a block's 32 channels (stride a multiple of 32, so the
# c_offset test is block-uniform and left out); one element per thread
# (the PARALLEL_LOADS loop folds into one load); the two shared arrays as
# two 4-slot views; __syncthreads() a named barrier over the block.  Left
# out: the gridDim.y > 1 staging/semaphore path, the mean/invstd scaling.
# Fix: pytorch_bn_bwd_reduce_channels_last_early_return_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def pytorch_bn_bwd_reduce_channels_last_early_return(lm, Input: LM.gmem, GradOut: LM.gmem,
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
        if w < reduction_size:                           # BUG: else return
            lm.copy(dy, GradOut, coords=(w, c0))
            lm.copy(xmu, Input, coords=(w, c0))          # x - mean
            lm.binary(xmu, xmu, dy, op="mul")            # dy * (x - mean)
            # merge_block_vertical_backward, offset = 2
            lm.copy(sh_dy[w], dy)
            lm.copy(sh_xmu[w], xmu)
            lm.sync(bar)                                                              # expect-error: sync.deadlock
            if w < 2:
                lm.copy(o_dy, sh_dy[w + 2])
                lm.copy(o_xmu, sh_xmu[w + 2])
                lm.binary(dy, dy, o_dy, op="add")
                lm.binary(xmu, xmu, o_xmu, op="add")
            lm.sync(bar)                                                              # expect-error: sync.deadlock
            # offset = 1
            if w < 2:
                lm.copy(sh_dy[w], dy)
                lm.copy(sh_xmu[w], xmu)
            lm.sync(bar)                                                              # expect-error: sync.deadlock
            if w < 1:
                lm.copy(o_dy, sh_dy[w + 1])
                lm.copy(o_xmu, sh_xmu[w + 1])
                lm.binary(dy, dy, o_dy, op="add")
                lm.binary(xmu, xmu, o_xmu, op="add")
            lm.sync(bar)                                                              # expect-error: sync.deadlock
            if w == 0:
                lm.copy(SumDy, dy, coords=(0, c0))
                lm.copy(SumDyXmu, xmu, coords=(0, c0))
