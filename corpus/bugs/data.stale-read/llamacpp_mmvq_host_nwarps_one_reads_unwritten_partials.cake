# BUG (data.stale-read): ggml-org/llama.cpp PR #28339 ("CUDA/HIP: derive
# MMVQ nwarps from kernel launch bounds", 2026-09-03, fixes issue #25620;
# tested on gfx11-generic and gfx1151, 10 FAIL -> 0 FAIL).
# ggml/src/ggml-cuda/mmvq.cu computes nwarps twice: the device code from
# the architecture macros (a gfx11-generic code object defines __GFX11__
# but not __gfx115x__, so it is compiled as RDNA3_0 with nwarps = 8), the
# host launch from the runtime compute capability (RDNA3_5: nwarps = 1).
# mul_mat_vec_q's cross-warp reduction, compiled for nwarps = 8:
#     __shared__ float tmp_shared[nwarps-1][ncols_dst][rows][warp_size];
#     if (threadIdx.y > 0) tmp_shared[threadIdx.y-1][j][i][threadIdx.x] = tmp[j][i];
#     __syncthreads();
#     if (threadIdx.y > 0) return;
#     for (int l = 0; l < nwarps-1; ++l) tmp[j][i] += tmp_shared[l][j][i][threadIdx.x];
# launched with blockDim.y = 1: no warp has threadIdx.y > 0, nothing writes
# tmp_shared, and warp 0 adds seven rows of uninitialized shared memory
# (NaN / -inf output at ncols_dst = 1).  The PR reads nwarps back from the
# compiled kernel (cudaFuncGetAttributes) so the launch matches it.
# Modelled: ncols_dst = 1, rows_per_cuda_block = 1, warp_size = 32; the
# block as one-warp instances (here the one warp the host launches), the
# kernel body as compiled for nwarps = 8; __syncthreads() a named barrier;
# the dot products as one load of the warp's partial sums.  Left out: the
# quantized dot products, the gate fusion, the final warp_reduce_sum.
# Fix: llamacpp_mmvq_host_nwarps_one_reads_unwritten_partials_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_mmvq_nwarps_mismatch(lm, X: LM.gmem, Dst: LM.gmem, n_rows: LM.i32):
    lm.assume(n_rows >= 1)
    pool       = lm.smem(1024)
    tmp_shared = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=7)   # [nwarps-1][1][1][32]
    tmp        = lm.regs(shape=(1, 32), dtype=lm.f32)
    part       = lm.regs(shape=(1, 32), dtype=lm.f32)
    res        = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0], group=1)        # blockDim.y = 1: the host's nwarps
    block = lm.named_barrier(roles=[warps])

    with warps:
        y = lm.instance()                       # threadIdx.y
        lm.copy(tmp, X, coords=(0, 32 * y))     # this warp's partial dot products
        if y > 0:
            lm.copy(tmp_shared[y - 1], tmp)
        lm.sync(block)
        if y == 0:
            for l in lm.range(0, 7):            # nwarps - 1 as compiled: 7
                lm.copy(part, tmp_shared[l])    # expect-error: data.stale-read
                lm.binary(tmp, tmp, part, op="add")
            lm.reduce(res, tmp, op="sum", axis=1)
            lm.copy(Dst, res, coords=(0, 0))
