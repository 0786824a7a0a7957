// row_max_stress: launches a lowered row-max kernel library (schedule
// row_max(X [M,N] bf16, Y [M,1] f32, D = N), e.g.
// corpus/reduction/sm90_row_max_two_wg.cake) many times and compares every
// launch's Y, exactly, with a one-thread-per-row reference. A race shows up
// as launches that differ. For each wrong row it says which 32-column
// chunk's values the result is missing (the max of the row without chunk c
// equals the result), to tell a lost exchange partial / tile from garbage
// (the first 2000 wrong rows; lost_chunk_hist counts those).
//
//   row_max_stress --kernel K.so --m M --n N [--launches L] [--seed S] [--flush 1]
//
// Prints one JSON line. Exit 0 if every launch is exact.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cake_abi.h"

#include "cuda_check.h"

__global__ void fill(__nv_bfloat16* x, size_t n, unsigned long long seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    x[i] = __float2bfloat16(static_cast<float>(h >> 40) / static_cast<float>(1ull << 24) * 2.f - 1.f);
  }
}
__global__ void ref_max(const __nv_bfloat16* x, float* r, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  float v = -INFINITY;
  for (int c = 0; c < n; ++c) v = fmaxf(v, __bfloat162float(x[size_t(row) * n + c]));
  r[row] = v;
}
__global__ void scribble(int4* p, size_t n, int v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_int4(v, v, v, v);
}

int main(int argc, char** argv) {
  std::string lib;
  int M = 65536, N = 2048, L = 200, flush = 1;
  unsigned long long seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--kernel")) lib = argv[i + 1];
    else if (!strcmp(argv[i], "--m")) M = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--n")) N = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--launches")) L = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], nullptr, 0);
    else if (!strcmp(argv[i], "--flush")) flush = atoi(argv[i + 1]);
  }
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) { printf("{\"result\": \"load_error\", \"detail\": \"%s\"}\n", dlerror()); return 2; }
  auto launch = reinterpret_cast<cake_launch_fn>(dlsym(h, "cake_launch"));
  if (!launch) { printf("{\"result\": \"load_error\", \"detail\": \"no cake_launch\"}\n"); return 2; }
  const size_t n = size_t(M) * N;
  __nv_bfloat16* x;
  float *y, *r;
  int4* fl;
  const size_t fl_n = (size_t(256) << 20) / sizeof(int4);
  CK(cudaMalloc(&x, n * 2));
  CK(cudaMalloc(&y, size_t(M) * 4));
  CK(cudaMalloc(&r, size_t(M) * 4));
  CK(cudaMalloc(&fl, fl_n * sizeof(int4)));
  fill<<<1024, 256>>>(x, n, seed);
  ref_max<<<(M + 255) / 256, 256>>>(x, r, M, N);
  CK(cudaDeviceSynchronize());
  std::vector<float> want(M), got(M);
  CK(cudaMemcpy(want.data(), r, size_t(M) * 4, cudaMemcpyDeviceToHost));
  CakeTensorArg ts[2]{};
  ts[0].data = x; ts[0].rank = 2; ts[0].dims[0] = M; ts[0].dims[1] = N; ts[0].strides[0] = N; ts[0].strides[1] = 1;
  ts[1].data = y; ts[1].rank = 2; ts[1].dims[0] = M; ts[1].dims[1] = 1; ts[1].strides[0] = 1; ts[1].strides[1] = 1;
  int i32[1] = {N};
  CakeLaunchArgs a{ts, 2, i32, 1, nullptr, 0, {0, 0, 0}};
  long long bad_launches = 0, bad_rows = 0, nonfinite = 0;
  std::vector<int> chunk_hist(N / 32 + 1, 0);  // chunk whose loss explains the row; last: none does
  std::string examples;
  std::vector<__nv_bfloat16> row(N);
  for (int l = 0; l < L; ++l) {
    if (flush && l % 2) scribble<<<1024, 256>>>(fl, fl_n, l);
    CK(cudaMemset(y, 0xFF, size_t(M) * 4));
    int e = launch(&a, nullptr);
    if (e) { printf("{\"result\": \"launch_error\", \"detail\": \"%s\"}\n", cudaGetErrorString(cudaError_t(e))); return 3; }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), y, size_t(M) * 4, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (int i = 0; i < M; ++i) {
      if (!std::isfinite(got[i])) { ++nonfinite; ++bad; continue; }
      if (got[i] == want[i]) continue;
      ++bad;
      if (bad_rows + bad > 2000) continue;  // diagnose the first 2000 wrong rows only (it costs a copy each)
      CK(cudaMemcpy(row.data(), x + size_t(i) * N, size_t(N) * 2, cudaMemcpyDeviceToHost));
      int which = N / 32;
      for (int c = 0; c < N / 32 && which == N / 32; ++c) {
        float v = -INFINITY;
        for (int k = 0; k < N; ++k)
          if (k / 32 != c) v = fmaxf(v, __bfloat162float(row[k]));
        if (v == got[i]) which = c;
      }
      ++chunk_hist[which];
      if (examples.size() < 1500)
        examples += (examples.empty() ? "" : ",") + std::string("{\"launch\":") + std::to_string(l) +
                    ",\"row\":" + std::to_string(i) + ",\"cta\":" + std::to_string(i / 128) +
                    ",\"got\":" + std::to_string(got[i]) + ",\"want\":" + std::to_string(want[i]) +
                    ",\"lost_chunk\":" + std::to_string(which == N / 32 ? -1 : which) + "}";
    }
    bad_rows += bad;
    if (bad) ++bad_launches;
  }
  std::string hist;
  for (int c = 0; c <= N / 32; ++c)
    if (chunk_hist[c]) hist += (hist.empty() ? "" : ",") + std::string("\"") + (c == N / 32 ? std::string("none") : std::to_string(c)) + "\":" + std::to_string(chunk_hist[c]);
  printf("{\"m\": %d, \"n\": %d, \"launches\": %d, \"seed\": %llu, \"flush\": %d, \"bad_launches\": %lld, \"bad_rows\": %lld, "
         "\"nonfinite\": %lld, \"lost_chunk_hist\": {%s}, \"examples\": [%s]}\n",
         M, N, L, seed, flush, bad_launches, bad_rows, nonfinite, hist.c_str(), examples.c_str());
  return bad_launches ? 1 : 0;
}
