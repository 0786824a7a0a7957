# BUG (sync.race), found by cake in the later text of LeelaChessZero/lc0's
# src/neural/backends/cuda/common_kernels.cu (the stored version that has
# rms_norm_kernel; no upstream report of it is in the stored corpora).
# layer_norm_kernel (and rms_norm_kernel once) sums a row of C channels
# through shared_sum_for_layer_norm, twice (mean, then variance):
#     if (threadIdx.x == 0) sum[threadIdx.z][threadIdx.y] = s;
#     __syncthreads();
#     if (threadIdx.x == 0 && threadIdx.y == 0) { cSum = sum of sum[threadIdx.z][0..blockDim.y); sum[threadIdx.z][0] = cSum; }
#     __syncthreads();
#     return sum[threadIdx.z][0];
# There is no barrier after the final read.  With C > 512 a row has
# blockDim.y = DivUp(C / 16, 32) >= 2 warps: warp (z, 0) returns, computes
# the variance partial and stores it into sum[z][0] while warp (z, 1) may
# not have read the mean there yet (the same shape as ml-explore/mlx PR
# #2340's threadgroup_sum).  lc0's SYCL port of the helper has the
# missing barrier (`float result = sum[0]; item_ct1.barrier(...); return
# result;`).
# Written in CAKE IR for C = 1024 (blockDim = (32, 2, 2) here; 512 / 64 = 8
# rows per block in the kernel): four one-warp instances, instance i is
# warp (z, y) = (i // 2, i % 2); the padding rows as in
# sync.deadlock/lc0_layer_norm_padding_row_early_return_fixed.cake (the HIP
# backend's fix: no early return); activation, bias, skip, gammas and
# betas left out.
# Fix: lc0_layer_norm_shared_sum_twice_no_trailing_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def lc0_layer_norm_kernel_c1024(lm, Input: LM.gmem, Output: LM.gmem, N: LM.i32):
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
        lm.copy(mean, sums[0][z:z + 1, 0:1])                # expect-error: sync.race
        lm.binary(val, val, mean, op="sub")
        lm.binary(val, val, val, op="mul")
        lm.reduce(s, val, op="sum", axis=1)
        lm.copy(sums[0][z:z + 1, y:y + 1], s)               # expect-error: sync.race
        lm.sync(block)
        if y == 0:
            lm.copy(two, sums[0][z:z + 1, 0:2])
            lm.reduce(s, two, op="sum", axis=1)
            lm.copy(sums[0][z:z + 1, 0:1], s)
        lm.sync(block)
        lm.copy(var, sums[0][z:z + 1, 0:1])
        lm.binary(val, val, var, op="div")
        if n < N:
            lm.copy(Output, val, coords=(n, 512 * y))
