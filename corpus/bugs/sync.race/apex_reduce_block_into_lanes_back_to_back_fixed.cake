# FIXED form of apex_reduce_block_into_lanes_back_to_back.cake (NVIDIA/apex
# PR #1798): the final __syncthreads() of reduce_block_into_lanes moves out
# of `if (share_result)`, as in PyTorch's copy of the function
# (aten/src/ATen/native/cuda/WeightNorm.cu), so every call returns only after
# warp 0 has read x[tid] and x[tid + 32]; the next call's x[tid] = val
# cannot overwrite them.
# expect: pass
@cake.schedule(target="sm_80")
def apex_reduce_block_into_lanes_back_to_back_fixed(lm, Output: LM.gmem, OutputPerTensor: LM.gmem,
                                                    Ret: LM.gmem, RetPerTensor: LM.gmem):
    pool  = lm.smem(512)
    x     = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    val   = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 32), dtype=lm.f32)
    other = lm.regs(shape=(1, 32), dtype=lm.f32)
    fin   = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        b = lm.block_idx(0)
        # first call: the global norm, val = output[threadIdx.x]
        lm.copy(val, Output, coords=(0, 32 * w))
        lm.copy(x[w], val)                          # x[tid] = val
        lm.sync(bar)
        if w < 2:                                   # i = 64: tid < 64
            lm.copy(part, x[w])
            lm.copy(other, x[w + 2])
            lm.binary(part, part, other, op="add")
            lm.copy(x[w], part)
        lm.sync(bar)
        if w == 0:                                  # tid < 32
            lm.copy(fin, x[0])
            lm.copy(other, x[1])                    # x[tid + 32]
            lm.binary(fin, fin, other, op="add")
            lm.copy(Ret, fin, coords=(0, 0))
        lm.sync(bar)                                # the fix: every call ends with it
        # second call: the per-tensor norm into the same buffer
        lm.copy(val, OutputPerTensor, coords=(b, 32 * w))
        lm.copy(x[w], val)                          # x[tid] = val
        lm.sync(bar)
        if w < 2:
            lm.copy(part, x[w])
            lm.copy(other, x[w + 2])
            lm.binary(part, part, other, op="add")
            lm.copy(x[w], part)
        lm.sync(bar)
        if w == 0:
            lm.copy(fin, x[0])
            lm.copy(other, x[1])
            lm.binary(fin, fin, other, op="add")
            lm.copy(RetPerTensor, fin, coords=(b, 0))
        lm.sync(bar)
