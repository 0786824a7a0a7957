# BUG (sync.deadlock): LeelaChessZero/lc0 PR #2420 ("Add a native HIP
# (ROCm) backend for AMD GPUs", merged 2026-06), the change to
# layer_norm_kernel in src/neural/backends/cuda/common_kernels.cu.  The
# kernel normalizes rows of C channels, one row per threadIdx.z
# (blockDim = (32, DivUp(C / 16, 32), rows per block)), and sums the row
# twice (mean, then variance) through shared_sum_for_layer_norm:
#     if (threadIdx.x == 0) sum[threadIdx.z][threadIdx.y] = s;
#     __syncthreads();
#     if (threadIdx.x == 0 && threadIdx.y == 0) { ... sum[threadIdx.z][0] = cSum; }
#     __syncthreads();
#     return sum[threadIdx.z][0];
# The kernel started with
#     int n = blockIdx.x * blockDim.z + threadIdx.z;
#     if (n >= N) return;
# so the padding rows of the last block (N not a multiple of blockDim.z)
# returned before the __syncthreads() of the two sums that the other rows
# wait in.  The PR: "An out-of-range row (n >= N) must NOT early-return:
# shared_sum_for_layer_norm calls __syncthreads() ... Instead fold it into
# oobThread so the padding row skips every load/store ... yet still
# reaches both barriers" (a hang on AMD, where two rows share a 64-lane
# wavefront; undefined behaviour by CUDA's rules).
# Written in CAKE IR for C <= 512 (blockDim.y = 1: one warp per row; the
# kernel then has 16 rows per block, written with 4): four one-warp
# instances, row z = instance z, __syncthreads() a named barrier; the 16
# values per thread as one 1x512 fragment per warp, warpReduce as
# lm.reduce, sum[16][16] as a 4x16 f32 view (column 0 used with
# blockDim.y = 1); activation, bias and skip left out; the normalize step
# as lm.binary.
# Fix: lc0_layer_norm_padding_row_early_return_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def lc0_layer_norm_kernel(lm, Input: LM.gmem, Output: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(256)
    sums = pool.view(offset=0, shape=(4, 16), dtype=lm.f32)     # __shared__ float sum[16][16]
    val  = lm.regs(shape=(1, 512), dtype=lm.f32)                  # val[16] of 32 lanes
    s    = lm.regs(shape=(1, 1), dtype=lm.f32)
    mean = lm.regs(shape=(1, 1), dtype=lm.f32)
    var  = lm.regs(shape=(1, 1), dtype=lm.f32)

    rows  = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[rows])

    with rows:
        z = lm.instance()                                   # threadIdx.z
        n = 4 * lm.block_idx(0) + z                         # blockIdx.x * blockDim.z + threadIdx.z
        if n < N:                                           # BUG: if (n >= N) return;
            lm.copy(val, Input, coords=(n, 0))
            lm.reduce(s, val, op="sum", axis=1)             # s += val[i]; warpReduce
            # shared_sum_for_layer_norm (mean)
            lm.copy(sums[0][z:z + 1, 0:1], s)               # sum[threadIdx.z][threadIdx.y] = s
            lm.sync(block)                                                   # expect-error: sync.deadlock
            lm.copy(s, sums[0][z:z + 1, 0:1])               # cSum over blockDim.y = 1 partials
            lm.copy(sums[0][z:z + 1, 0:1], s)               # sum[threadIdx.z][0] = cSum
            lm.sync(block)                                                   # expect-error: sync.deadlock
            lm.copy(mean, sums[0][z:z + 1, 0:1])            # return sum[threadIdx.z][0]
            lm.binary(val, val, mean, op="sub")             # d = val[i] - mean
            lm.binary(val, val, val, op="mul")
            lm.reduce(s, val, op="sum", axis=1)             # s += d * d
            # shared_sum_for_layer_norm (variance)
            lm.copy(sums[0][z:z + 1, 0:1], s)
            lm.sync(block)                                                   # expect-error: sync.deadlock
            lm.copy(s, sums[0][z:z + 1, 0:1])
            lm.copy(sums[0][z:z + 1, 0:1], s)
            lm.sync(block)                                                   # expect-error: sync.deadlock
            lm.copy(var, sums[0][z:z + 1, 0:1])
            lm.binary(val, val, var, op="div")              # normalize (gammas, betas left out)
            lm.copy(Output, val, coords=(n, 0))
