# FIXED: lc0_layer_norm_padding_row_early_return.cake as LeelaChessZero/lc0
# PR #2420 fixes it: no early return; a padding row (n >= N) is an
# oobThread, which skips the loads and the store but reaches both
# __syncthreads() of both sums.  (With C <= 512 each row is one warp, so
# the two calls of shared_sum_for_layer_norm reuse only the row's own
# sum[z][0].)
# expect: pass
@cake.schedule(target="sm_80")
def lc0_layer_norm_kernel_fixed(lm, Input: LM.gmem, Output: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(256)
    sums = pool.view(offset=0, shape=(4, 16), dtype=lm.f32)     # __shared__ float sum[16][16]
    val  = lm.regs(shape=(1, 512), dtype=lm.f32)                  # val[16] of 32 lanes (zeros when out of range)
    s    = lm.regs(shape=(1, 1), dtype=lm.f32)
    mean = lm.regs(shape=(1, 1), dtype=lm.f32)
    var  = lm.regs(shape=(1, 1), dtype=lm.f32)

    rows  = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[rows])

    with rows:
        z = lm.instance()                                   # threadIdx.z
        n = 4 * lm.block_idx(0) + z                         # blockIdx.x * blockDim.z + threadIdx.z
        lm.fill(val, 0.0)
        if n < N:                                           # the fix: oobThread |= n >= N
            lm.copy(val, Input, coords=(n, 0))
        lm.reduce(s, val, op="sum", axis=1)                 # s += val[i]; warpReduce
        # shared_sum_for_layer_norm (mean)
        lm.copy(sums[0][z:z + 1, 0:1], s)                   # sum[threadIdx.z][threadIdx.y] = s
        lm.sync(block)
        lm.copy(s, sums[0][z:z + 1, 0:1])                   # cSum over blockDim.y = 1 partials
        lm.copy(sums[0][z:z + 1, 0:1], s)                   # sum[threadIdx.z][0] = cSum
        lm.sync(block)
        lm.copy(mean, sums[0][z:z + 1, 0:1])                # return sum[threadIdx.z][0]
        lm.binary(val, val, mean, op="sub")                 # d = val[i] - mean
        lm.binary(val, val, val, op="mul")
        lm.reduce(s, val, op="sum", axis=1)                 # s += d * d
        # shared_sum_for_layer_norm (variance)
        lm.copy(sums[0][z:z + 1, 0:1], s)
        lm.sync(block)
        lm.copy(s, sums[0][z:z + 1, 0:1])
        lm.copy(sums[0][z:z + 1, 0:1], s)
        lm.sync(block)
        lm.copy(var, sums[0][z:z + 1, 0:1])
        lm.binary(val, val, var, op="div")                  # normalize (gammas, betas left out)
        if n < N:
            lm.copy(Output, val, coords=(n, 0))
