// Hand-written template of what lowering/ emits for an sm_80 multistage bf16
// GEMM schedule: C[M,N] = A[M,K] * B[N,K]^T (both K-major), fp32 accumulate.
//
// One role `mma` of 8 warps (2 along M x 4 along N, warp tile 64 x 32),
// block tile 128 x 128 x 32, STAGES-deep cp.async ring for smem_a / smem_b
// (rows padded by 16 B so ldmatrix is conflict-free), ldmatrix.x4 +
// mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32, direct bf16x2 stores.
// Slot of k-block kb = kb % STAGES; cp.async.wait_group(STAGES-2) + bar.sync
// before reading a slot; the slot refilled at step kb is (kb-1) % STAGES,
// which every warp finished reading before that bar.sync.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cake_abi.h"

namespace cake_sm80_gemm {

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4;
constexpr int THREADS = 256;
constexpr int ROW = BK + 8;  // padded row, elements (80 B)
constexpr int A_SLOT = BM * ROW, B_SLOT = BN * ROW;  // elements
constexpr int SMEM_BYTES = STAGES * (A_SLOT + B_SLOT) * 2;

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, bool pred) {
  const int n = pred ? 16 : 0;  // src-size 0: zero-fill (out of bounds)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(n) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__global__ void __launch_bounds__(THREADS)
    gemm_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                __nv_bfloat16* __restrict__ C, int M, int N, int K, int lda, int ldb, int ldc) {
  extern __shared__ __align__(128) __nv_bfloat16 smem[];
  __nv_bfloat16* smem_a = smem;
  __nv_bfloat16* smem_b = smem + STAGES * A_SLOT;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4;  // warp tile origin: rows 64*wm, cols 32*wn
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kblocks = (K + BK - 1) / BK;

  // each thread copies 2 16-byte chunks of A and 2 of B per stage
  auto load_stage = [&](int kb) {
    const int slot = kb % STAGES;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int c = tid + i * THREADS;  // 0..511
      const int r = c / 4, kc = (c % 4) * 8;
      const int k = kb * BK + kc;
      const bool pa = (m0 + r) < M && k < K;
      const bool pb = (n0 + r) < N && k < K;
      cp_async_16(smem_u32(smem_a + slot * A_SLOT + r * ROW + kc),
                  A + static_cast<size_t>(pa ? m0 + r : 0) * lda + (pa ? k : 0), pa);
      cp_async_16(smem_u32(smem_b + slot * B_SLOT + r * ROW + kc),
                  B + static_cast<size_t>(pb ? n0 + r : 0) * ldb + (pb ? k : 0), pb);
    }
  };

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < kblocks) load_stage(s);
    cp_async_commit();
  }

  for (int kb = 0; kb < kblocks; ++kb) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    if (kb + STAGES - 1 < kblocks) load_stage(kb + STAGES - 1);
    cp_async_commit();
    const int slot = kb % STAGES;
    const __nv_bfloat16* sa = smem_a + slot * A_SLOT + (wm * 64) * ROW;
    const __nv_bfloat16* sb = smem_b + slot * B_SLOT + (wn * 32) * ROW;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t af[4][4], bf[2][4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        ldmatrix_x4(af[i], smem_u32(sa + (i * 16 + (lane % 16)) * ROW + kk + (lane / 16) * 8));
#pragma unroll
      for (int j = 0; j < 2; ++j)
        ldmatrix_x4(bf[j], smem_u32(sb + (j * 16 + (lane % 8) + (lane / 16) * 8) * ROW + kk + ((lane / 8) % 2) * 8));
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) mma_bf16_16816(acc[i][j], af[i], bf[j / 2][(j % 2) * 2], bf[j / 2][(j % 2) * 2 + 1]);
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int r = m0 + wm * 64 + i * 16 + lane / 4;
      const int c = n0 + wn * 32 + j * 8 + (lane % 4) * 2;
      if (c < N) {
        if (r < M)
          *reinterpret_cast<__nv_bfloat162*>(C + static_cast<size_t>(r) * ldc + c) =
              __floats2bfloat162_rn(acc[i][j][0], acc[i][j][1]);
        if (r + 8 < M)
          *reinterpret_cast<__nv_bfloat162*>(C + static_cast<size_t>(r + 8) * ldc + c) =
              __floats2bfloat162_rn(acc[i][j][2], acc[i][j][3]);
      }
    }
}

}  // namespace cake_sm80_gemm

extern "C" int cake_abi_version(void) { return CAKE_ABI_VERSION; }

extern "C" void cake_kernel_info(CakeKernelInfo* info) {
  using namespace cake_sm80_gemm;
  info->name = "sm80_gemm";
  info->target = "sm_80";
  info->block_m = BM;
  info->block_n = BN;
  info->block_k = BK;
  info->stages = STAGES;
  info->m_multiple = 1;
  info->n_multiple = 8;
  info->k_multiple = 8;
}

extern "C" int cake_gemm_launch(const CakeGemmArgs* a, void* stream) {
  using namespace cake_sm80_gemm;
  static bool attr = false;
  if (!attr) {
    cudaError_t r = cudaFuncSetAttribute(gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    if (r != cudaSuccess) return r;
    attr = true;
  }
  dim3 grid((a->N + BN - 1) / BN, (a->M + BM - 1) / BM);
  gemm_kernel<<<grid, THREADS, SMEM_BYTES, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(a->A), static_cast<const __nv_bfloat16*>(a->B),
      static_cast<__nv_bfloat16*>(a->C), a->M, a->N, a->K, a->lda, a->ldb, a->ldc);
  return cudaGetLastError();
}
