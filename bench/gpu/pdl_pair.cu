// A PDL-launched pair of lowered GEMMs on one stream (docs/gpu.md
// "Programmatic dependent launch"): C1 = A . B1^T, then C2 = C1 . B2^T,
// the second reading the first's output. The kernel library is a lowered
// schedule with lm.grid_dependency(A) / lm.grid_dep_wait() /
// lm.launch_dependents() (corpus/bugs/sync.grid-dependency/
// sm90_pdl_load_before_wait_fixed.cake); its launcher sets
// cudaLaunchAttributeProgrammaticStreamSerialization unless CAKE_PDL=0.
//
// Checks C2 against an fp32 reference computed by a plain CUDA kernel from
// the same bf16 inputs (C1 rounded to bf16 as the pair does), then times
// `iters` back-to-back pairs with CUDA events. Prints one JSON line.
//
//   pdl_pair LIB.so M N K [iters]      (N == K: C1 is the second A)
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cake_abi.h"

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(3);                                                                       \
    }                                                                                     \
  } while (0)

__global__ void fill(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = __float2bfloat16(((h & 0xffff) / 65535.0f - 0.5f) * 0.25f);
  }
}

// C[m, n] = sum_k A[m, k] * B[n, k], fp32, rounded to bf16 when `round`.
__global__ void refGemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* Cf, __nv_bfloat16* Cb, int M, int N,
                        int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N || m >= M) return;
  float s = 0;
  for (int k = 0; k < K; ++k) s += __bfloat162float(A[(size_t)m * K + k]) * __bfloat162float(B[(size_t)n * K + k]);
  if (Cf) Cf[(size_t)m * N + n] = s;
  if (Cb) Cb[(size_t)m * N + n] = __float2bfloat16(s);
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: pdl_pair LIB.so M N K [iters]\n");
    return 2;
  }
  const int M = std::atoi(argv[2]), N = std::atoi(argv[3]), K = std::atoi(argv[4]);
  const int iters = argc > 5 ? std::atoi(argv[5]) : 200;
  if (N != K) { std::fprintf(stderr, "N must equal K (C1 is the second GEMM's A)\n"); return 2; }
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) { std::fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
  auto launch = reinterpret_cast<cake_gemm_launch_fn>(dlsym(lib, "cake_gemm_launch"));
  if (!launch) { std::fprintf(stderr, "no cake_gemm_launch in %s\n", argv[1]); return 2; }
  __nv_bfloat16 *A, *B1, *B2, *C1, *C2, *R1;
  float* R2;
  CK(cudaMalloc(&A, sizeof(__nv_bfloat16) * M * K));
  CK(cudaMalloc(&B1, sizeof(__nv_bfloat16) * N * K));
  CK(cudaMalloc(&B2, sizeof(__nv_bfloat16) * N * K));
  CK(cudaMalloc(&C1, sizeof(__nv_bfloat16) * M * N));
  CK(cudaMalloc(&C2, sizeof(__nv_bfloat16) * M * N));
  CK(cudaMalloc(&R1, sizeof(__nv_bfloat16) * M * N));
  CK(cudaMalloc(&R2, sizeof(float) * M * N));
  fill<<<256, 256>>>(A, (size_t)M * K, 1);
  fill<<<256, 256>>>(B1, (size_t)N * K, 2);
  fill<<<256, 256>>>(B2, (size_t)N * K, 3);
  CK(cudaMemset(C1, 0xff, sizeof(__nv_bfloat16) * M * N));  // poisoned (NaN)
  CK(cudaMemset(C2, 0xff, sizeof(__nv_bfloat16) * M * N));
  refGemm<<<dim3((N + 127) / 128, M), 128>>>(A, B1, nullptr, R1, M, N, K);
  refGemm<<<dim3((N + 127) / 128, M), 128>>>(R1, B2, R2, nullptr, M, N, N);
  CK(cudaDeviceSynchronize());

  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CakeGemmArgs g1{A, B1, C1, M, N, K, K, K, N}, g2{C1, B2, C2, M, N, N, N, N, N};
  auto pair = [&] {
    CK(static_cast<cudaError_t>(launch(&g1, st)));
    CK(static_cast<cudaError_t>(launch(&g2, st)));
  };
  pair();
  CK(cudaStreamSynchronize(st));
  std::vector<__nv_bfloat16> c2((size_t)M * N);
  std::vector<float> r2((size_t)M * N);
  CK(cudaMemcpy(c2.data(), C2, sizeof(__nv_bfloat16) * c2.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r2.data(), R2, sizeof(float) * r2.size(), cudaMemcpyDeviceToHost));
  double max_err = 0, ref_max = 0;
  bool finite = true;
  for (size_t i = 0; i < c2.size(); ++i) {
    float v = __bfloat162float(c2[i]);
    finite = finite && std::isfinite(v);
    max_err = std::fmax(max_err, std::fabs(v - r2[i]));
    ref_max = std::fmax(ref_max, std::fabs(r2[i]));
  }
  const double rel = max_err / (ref_max > 0 ? ref_max : 1);
  const bool correct = finite && rel < 2e-2;

  // timing: warm up, then `iters` pairs back to back, 5 repetitions (median)
  for (int i = 0; i < 20; ++i) pair();
  CK(cudaStreamSynchronize(st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> us;
  for (int rep = 0; rep < 5; ++rep) {
    CK(cudaEventRecord(e0, st));
    for (int i = 0; i < iters; ++i) pair();
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    us.push_back(ms * 1000.0f / iters);
  }
  std::sort(us.begin(), us.end());
  // the pair stays correct after the timed runs too (C1 rewritten while the
  // previous pair's second GEMM may still have been reading it)
  std::vector<__nv_bfloat16> c2b((size_t)M * N);
  CK(cudaMemcpy(c2b.data(), C2, sizeof(__nv_bfloat16) * c2b.size(), cudaMemcpyDeviceToHost));
  size_t differ = 0;
  for (size_t i = 0; i < c2.size(); ++i) differ += __bfloat162float(c2[i]) != __bfloat162float(c2b[i]);
  const char* pdl = std::getenv("CAKE_PDL");
  std::printf("{\"M\": %d, \"N\": %d, \"K\": %d, \"pdl\": %s, \"iters\": %d, \"correct\": %s, \"max_rel_error\": %.3g, "
              "\"after_timing_differ\": %zu, \"pair_us_median\": %.3f, \"pair_us_min\": %.3f, \"pair_us_max\": %.3f}\n",
              M, N, K, (pdl && pdl[0] == '0') ? "false" : "true", iters, correct ? "true" : "false", rel, differ,
              us[us.size() / 2], us.front(), us.back());
  return correct && differ == 0 ? 0 : 1;
}
