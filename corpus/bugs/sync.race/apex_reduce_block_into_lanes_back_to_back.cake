# BUG (sync.race): NVIDIA/apex PR #1798 ("Fix reduce_blocks_into_lanes race
# condition"): csrc/type_shim.h reduce_block_into_lanes(x, val, lanes,
# share_result) reduces through the __shared__ buffer x:
#     x[tid] = val; __syncthreads();
#     for (i = blockSize >> 1; i >= 64; i >>= 1) {
#       if (tid < i) x[tid] = x[tid] + x[tid + i]; __syncthreads(); }
#     if (tid < 32) final = x[tid] + x[tid + 32];  ... __shfl_down_sync ...
#     if (share_result) { if (tid < lanes) x[tid] = final; __syncthreads(); }
# The last __syncthreads() sits inside `if (share_result)`, and apex always
# passes share_result = false, so the function returns with warp 0 still
# reading x[tid + 32].  Called twice in a row on the same buffer - as
# multi_tensor_l2norm_kernel.cu's cleanup() does: the global norm
# (blockIdx.x == 0), then the per-tensor norm, both into `vals` - the second
# call's `x[tid] = val` (type_shim.h:333) overwrites x[32..63] while warp 0
# of the first call still reads it (type_shim.h:350): compute-sanitizer
# racecheck reported exactly that pair (128 hazards) in test_lamb.py, with
# numerical mismatches on H100/GH.
# Modelled: a 128-thread block (4 warps, each a one-warp instance;
# __syncthreads() is a named barrier over all of them), x as one 32-float
# slot per warp (x[tid] is the slot of tid's warp), the two back-to-back
# reductions of cleanup() (per_tensor true, block 0).  The tree for 128
# threads has one cross-warp step (i = 64: warps 0 and 1 add warps 2 and 3),
# then warp 0 reads x[tid] + x[tid + 32] (slots 0 and 1).  Left out: the
# shuffles inside warp 0 (registers only), the sqrt.
# Fix: apex_reduce_block_into_lanes_back_to_back_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_80")
def apex_reduce_block_into_lanes_back_to_back(lm, Output: LM.gmem, OutputPerTensor: LM.gmem,
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
            lm.copy(other, x[1])                                                      # expect-error: sync.race
            lm.binary(fin, fin, other, op="add")
            lm.copy(Ret, fin, coords=(0, 0))
        # share_result == false: no __syncthreads() before returning (BUG)
        # second call: the per-tensor norm into the same buffer
        lm.copy(val, OutputPerTensor, coords=(b, 32 * w))
        lm.copy(x[w], val)                                                            # expect-error: sync.race
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
