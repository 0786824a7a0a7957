# BUG (sync.race): pytorch/pytorch PR #162995 ("[CUDA] fix shared memory
# race in `reduce_kernel`", eqy, 2025-09-15), found by compute-sanitizer
# racecheck in test_matmul_cuda.py's blockwise scaled_mm emulation.
# aten/src/ATen/native/cuda/Reduce.cuh, ReduceOp::run():
#     if (config.should_block_y_reduce()) value = block_y_reduce(value, shared_memory);
#     if (config.should_block_x_reduce()) value = block_x_reduce(value, shared_memory);
# block_y_reduce writes shared[x + y*bdx], then per step __syncthreads()
# and (threadIdx.y < offset) reads shared[x + (y + offset)*bdx]; it
# returns right after its last read, no barrier.  block_x_reduce (dim_x >
# warpSize) starts with shared[x + y*bdx] = value, no barrier before it:
# the row y + offset overwrites the word row y is still reading.
# Modelled: blockDim (64, 2), four one-warp instances (warp w is row
# y = w // 2, half x // 32 = w % 2), so shared[x + y*64] of warp w's lanes
# is slot w of `sh` (32 floats); __syncthreads() is a named barrier over all
# four.  block_y_reduce has one step (offset 1: rows 0 read row 1);
# block_x_reduce one shared step (offset 32), then warp shuffles (registers).
# Left out: thread_reduce's loads (one load), the vectorized output_vec_size,
# global_reduce.
# Fix: pytorch_reduce_block_y_then_x_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def pytorch_reduce_block_y_then_x_no_barrier(lm, In: LM.gmem, Out: LM.gmem):
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
            lm.copy(other, sh[w + 2])                                                 # expect-error: sync.race
            lm.binary(val, val, other, op="add")
            lm.copy(sh[w], val)
        # (BUG) no __syncthreads() between block_y_reduce and block_x_reduce
        # block_x_reduce, dim_x = 64 > warpSize
        lm.copy(sh[w], val)                                                           # expect-error: sync.race
        lm.sync(bar)                                # offset = 32
        if w % 2 == 0:                              # threadIdx.x < 32
            lm.copy(other, sh[w + 1])
            lm.binary(val, val, other, op="add")
            lm.copy(sh[w], val)
        lm.sync(bar)
        # warp shuffles in registers; row 0's lane 0 holds the output
        if w == 0:
            lm.copy(Out, val, coords=(b, 0))
