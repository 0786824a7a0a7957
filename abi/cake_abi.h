// cake kernel ABI: what every lowered (or hand-written) kernel library exports.
//
// A kernel is compiled by nvcc into a shared object (`nvcc -shared`), which the
// harness (runner/harness/cake_harness.cu) loads with dlopen. It lives in abi/
// because both sides own it: lowering/ emits libraries that export it, runner/
// builds them and the harness against it (nvcc -I abi). The harness owns
// allocation, random inputs, the poisoned output, the cuBLAS oracle and CUPTI
// timing; the kernel library only encodes its tensor maps and launches.
//
// Problem: C[M,N] = A[M,K] * B[N,K]^T, A and B K-major bf16, C row-major bf16,
// fp32 accumulation.
#pragma once
#include <stdint.h>

#define CAKE_ABI_VERSION 1

typedef struct CakeGemmArgs {
  const void* A;  // bf16 [M, K], row stride lda elements
  const void* B;  // bf16 [N, K], row stride ldb elements
  void* C;        // bf16 [M, N], row stride ldc elements
  int M, N, K;
  int lda, ldb, ldc;
} CakeGemmArgs;

typedef struct CakeKernelInfo {
  const char* name;    // schedule / kernel name
  const char* target;  // "sm_90a", "sm_80", ...
  int block_m, block_n, block_k;
  int stages;
  // required divisibility of M, N, K (1 = any); the harness refuses other shapes
  int m_multiple, n_multiple, k_multiple;
} CakeKernelInfo;

// The generic launcher every lowered kernel exports (for any schedule, not
// only GEMMs): the schedule's tensor parameters in order, then its i32 and
// f32 parameters in order. Dims and strides are in elements, outermost
// first; the innermost stride must be 1. grid: {0, 0, 0} uses the grid the
// lowering derived from the schedule (the output store's block_idx steps,
// or one CTA per SM for a persistent schedule); a schedule with no derivable
// grid needs one here.
typedef struct CakeTensorArg {
  void* data;
  int rank;
  long long dims[5];
  long long strides[5];
} CakeTensorArg;

typedef struct CakeLaunchArgs {
  const CakeTensorArg* tensors;
  int num_tensors;
  const int* i32;
  int num_i32;
  const float* f32;
  int num_f32;
  unsigned grid[3];
} CakeLaunchArgs;

#ifdef __cplusplus
extern "C" {
#endif
// Exported by the kernel library.
typedef int (*cake_abi_version_fn)(void);
typedef void (*cake_kernel_info_fn)(CakeKernelInfo*);
// Returns a cudaError_t (0 = success). `stream` is a cudaStream_t.
typedef int (*cake_gemm_launch_fn)(const CakeGemmArgs*, void* stream);
// Exported by every lowered kernel library; the GEMM launcher only by GEMM-shaped schedules.
typedef int (*cake_launch_fn)(const CakeLaunchArgs*, void* stream);
#ifdef __cplusplus
}
#endif
