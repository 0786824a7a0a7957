# FIXED: lc0_layer_norm_shared_sum_twice_no_trailing_sync.cake with the
# barrier that lc0's SYCL port of shared_sum_for_layer_norm has after its
# final read (`float result = sum[0]; barrier; return result;`): every warp
# of the row has read the mean before warp (z, 0) stores the variance
# partial into sum[z][0].
# expect: pass
@cake.schedule(target="sm_80")
def lc0_layer_norm_kernel_c1024_fixed(lm, Input: LM.gmem, Output: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(128)
    sums = pool.view(offset=0, shape=(2, 16), dtype=lm.f32)     # __shared__ float sum[16][16]
    val  = lm.regs(shape=(1, 512), dtype=lm.f32)
    s    = lm.regs(shape=(1, 1), dtype=lm.f32)
    two  = lm.regs(shape=(1, 2), dtype=lm.f32)
    mean = lm.regs(shape=(1, 1), dtype=lm.f32)
    var  = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        z = lm.instance() // 2                              # threadIdx.z
        y = lm.instance() % 2                               # threadIdx.y
        n = 2 * lm.block_idx(0) + z
        lm.fill(val, 0.0)
        if n < N:
            lm.copy(val, Input, coords=(n, 512 * y))
        lm.reduce(s, val, op="sum", axis=1)
        lm.copy(sums[0][z:z + 1, y:y + 1], s)
        lm.sync(block)
        if y == 0:
            lm.copy(two, sums[0][z:z + 1, 0:2])
            lm.reduce(s, two, op="sum", axis=1)
            lm.copy(sums[0][z:z + 1, 0:1], s)
        lm.sync(block)
        lm.copy(mean, sums[0][z:z + 1, 0:1])
        lm.sync(block)                                      # the SYCL port's barrier after the read
        lm.binary(val, val, mean, op="sub")
        lm.binary(val, val, val, op="mul")
        lm.reduce(s, val, op="sum", axis=1)
        lm.copy(sums[0][z:z + 1, y:y + 1], s)
        lm.sync(block)
        if y == 0:
            lm.copy(two, sums[0][z:z + 1, 0:2])
            lm.reduce(s, two, op="sum", axis=1)
            lm.copy(sums[0][z:z + 1, 0:1], s)
        lm.sync(block)
        lm.copy(var, sums[0][z:z + 1, 0:1])
        lm.sync(block)                                      # the SYCL port's barrier after the read
        lm.binary(val, val, var, op="div")
        if n < N:
            lm.copy(Output, val, coords=(n, 512 * y))
