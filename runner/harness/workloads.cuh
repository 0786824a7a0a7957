// Workload contracts beyond GEMM (runner/harness/cake_harness.cu includes
// this after its helpers). The kernel library is launched through the
// generic ABI `cake_launch` with the tensors in the schedule's parameter
// order, as the runner binds them (workload/workload.h):
//
//   --workload kmeans-assign|attention-fwd|row-sum|row-max
//   --dim NAME=V ...           the problem sizes (B, N, K, D / B, H, S, D, causal / M, N)
//   --tensor NAME:d0,d1,.. ... per tensor parameter in order: the contract tensor and its dims as the
//                              schedule sees them (one launch's worth)
//   --i32 V ...                the schedule's i32 parameters in order
//   --launches L               one launch per batch element (a 2-D schedule of a batched problem)
//
// Each workload has an oracle (checked before and after the timed runs) and
// a same-run baseline built from cuBLAS and plain kernels, timed
// interleaved with the kernel after L2 flushes like the GEMM.
#pragma once

#include <functional>
#include <map>

namespace wl {

// ---------------------------------------------------------------- kernels

__global__ void row_norms(const __nv_bfloat16* c, float* cn, long long rows, int d) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows; r += (long long)gridDim.x * blockDim.x) {
    float s = 0;
    for (int i = 0; i < d; ++i) {
      const float v = __bfloat162float(c[r * d + i]);
      s += v * v;
    }
    cn[r] = s;
  }
}

// dist[b,n,k] = cn[b,k] - 2 dots[b,n,k]: the best index (ties to the smaller) and value per point.
__global__ void argmin_rows(const float* dots, const float* cn, long long points, int n, int k, int* lab,
                            float* best) {
  const long long row = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= points) return;
  const long long b = row / n;
  float bv = INFINITY;
  int bi = 0x7fffffff;
  for (int j = lane; j < k; j += 32) {
    const float v = cn[b * k + j] - 2.0f * dots[row * k + j];
    if (v < bv || (v == bv && j < bi)) bv = v, bi = j;
  }
  for (int o = 16; o; o >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
    const int oi = __shfl_xor_sync(0xffffffffu, bi, o);
    if (ov < bv || (ov == bv && oi < bi)) bv = ov, bi = oi;
  }
  if (lane == 0) {
    lab[row] = bi;
    if (best) best[row] = bv;
  }
}

// Labels that differ from the oracle's must be true ties: the distance of
// the kernel's choice within `tol` of the best.
__global__ void check_labels(const int* lab, const int* ref, const float* best, const float* dots, const float* cn,
                             long long points, int n, int k, float rel_tol, unsigned long long* bad,
                             unsigned long long* ties) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < points; r += (long long)gridDim.x * blockDim.x) {
    const int l = lab[r];
    if (l == ref[r]) continue;
    if (l < 0 || l >= k) {
      atomicAdd(bad, 1ull);
      continue;
    }
    const float d = cn[(r / n) * k + l] - 2.0f * dots[r * k + l];
    if (d - best[r] <= rel_tol * fmaxf(1.0f, fabsf(best[r]))) atomicAdd(ties, 1ull);
    else atomicAdd(bad, 1ull);
  }
}

// Row softmax of s [rows, cols] (scaled; causal: column j > row i % cols
// masked), in place in f32 or into a bf16 copy.
template <class P>
__global__ void softmax_rows(float* s, P* p, long long rows, int cols, float scale, int causal) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  float* x = s + row * cols;
  const int qi = static_cast<int>(row % cols);
  const int limit = causal ? qi + 1 : cols;
  __shared__ float red[32];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < limit; j += blockDim.x) m = fmaxf(m, x[j] * scale);
  for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : -INFINITY;
    for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (threadIdx.x == 0) red[0] = v;
  }
  __syncthreads();
  m = red[0];
  __syncthreads();
  float sum = 0;
  for (int j = threadIdx.x; j < limit; j += blockDim.x) sum += expf(x[j] * scale - m);
  for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : 0.f;
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) red[0] = v;
  }
  __syncthreads();
  const float inv = 1.0f / red[0];
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    const float v = j < limit ? expf(x[j] * scale - m) * inv : 0.f;
    if constexpr (sizeof(P) == 4) x[j] = v;
    else p[row * cols + j] = __float2bfloat16(v);
  }
}

__global__ void to_f32(const __nv_bfloat16* a, float* b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    b[i] = __bfloat162float(a[i]);
}

// [h, s, d] -> [h, d, s]
__global__ void transpose_sd(const __nv_bfloat16* v, __nv_bfloat16* vt, long long heads, int s, int d) {
  const size_t n = static_cast<size_t>(heads) * s * d;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const size_t h = i / (static_cast<size_t>(s) * d), r = i % (static_cast<size_t>(s) * d);
    const size_t j = r / d, c = r % d;
    vt[h * s * d + c * s + j] = v[i];
  }
}

// One warp per row: the sum or max in f32 (the row-reduction oracle and baseline).
__global__ void reduce_rows(const __nv_bfloat16* x, float* y, long long rows, long long cols, int is_max) {
  const long long row = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float a = is_max ? -INFINITY : 0.f;
  for (long long j = lane; j < cols; j += 32) {
    const float v = __bfloat162float(x[row * cols + j]);
    a = is_max ? fmaxf(a, v) : a + v;
  }
  for (int o = 16; o; o >>= 1) {
    const float v = __shfl_xor_sync(0xffffffffu, a, o);
    a = is_max ? fmaxf(a, v) : a + v;
  }
  if (lane == 0) y[row] = a;
}

__global__ void fill_i32(int* p, size_t n, int v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}

// ------------------------------------------------------------------ driver

struct Args {
  std::string workload;
  std::map<std::string, long long> dims;
  std::vector<std::pair<std::string, std::vector<long long>>> tensors;
  std::vector<int> i32;
  long long launches = 1;
  long long dim(const char* k) const {
    auto it = dims.find(k);
    return it == dims.end() ? 0 : it->second;
  }
};

struct Buffer {
  void* ptr = nullptr;
  size_t elems = 0;  // of the whole batched tensor
  int elem_bytes = 2;
};

template <class T>
T* alloc(size_t n) {
  T* p = nullptr;
  CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)));
  return p;
}

int run(const Options& o, const Args& w, void* lib) {
  auto launch_fn = reinterpret_cast<cake_launch_fn>(dlsym(lib, "cake_launch"));
  if (!launch_fn) fail("load_error", "kernel library lacks cake_launch", 2);
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_json.str("device", prop.name);
  g_json.str("workload", w.workload);
  for (const auto& [k, v] : w.dims) g_json.integer(("dim_" + k).c_str(), v);
  const int grid = prop.multiProcessorCount * 8;
  std::map<std::string, Buffer> buf;
  auto bf16 = [&](const std::string& n, size_t elems) {
    buf[n] = {alloc<__nv_bfloat16>(elems), elems, 2};
    return static_cast<__nv_bfloat16*>(buf[n].ptr);
  };
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const float one = 1.0f, zero = 0.0f;
  std::function<void()> baseline, prepare_check;
  std::function<bool(double*, double*, std::string*)> check;
  double flops = 0;
  std::string baseline_name;
  const std::string& W = w.workload;

  if (W == "kmeans-assign") {
    const long long B = std::max(1LL, w.dim("B")), N = w.dim("N"), K = w.dim("K"), D = w.dim("D");
    flops = 2.0 * B * N * K * D;
    auto* X = bf16("X", B * N * D);
    auto* C = bf16("C", B * K * D);
    float* CN = alloc<float>(B * K);
    int* LAB = alloc<int>(B * N);
    float* dots = alloc<float>(B * N * K);
    int* ref = alloc<int>(B * N);
    int* base_lab = alloc<int>(B * N);
    float* best = alloc<float>(B * N);
    buf["CN"] = {CN, static_cast<size_t>(B * K), 4};
    buf["LAB"] = {LAB, static_cast<size_t>(B * N), 4};
    cake_fill_random<<<grid, 256>>>(X, B * N * D, o.seed);
    cake_fill_random<<<grid, 256>>>(C, B * K * D, ~o.seed);
    row_norms<<<grid, 256>>>(C, CN, B * K, static_cast<int>(D));  // the norms are an input, like the points
    CK(cudaGetLastError());
    // dots[b] [N, K] = X[b] C[b]^T (row-major), i.e. column-major [K, N] = C^T' X: "TN", batched
    auto gemm = [=]() {
      CKB(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, K, N, D, &one, C, CUDA_R_16BF, D, K * D, X,
                                     CUDA_R_16BF, D, N * D, &zero, dots, CUDA_R_32F, K, N * K, B, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
    };
    const long long points = B * N;
    baseline = [=]() {
      gemm();
      argmin_rows<<<(points + 7) / 8, 256>>>(dots, CN, points, N, K, base_lab, nullptr);
    };
    baseline_name = "cublasGemmStridedBatchedEx(f32 out) + argmin";
    gemm();
    argmin_rows<<<(points + 7) / 8, 256>>>(dots, CN, points, N, K, ref, best);
    CK(cudaGetLastError());
    prepare_check = [=]() { fill_i32<<<grid, 256>>>(LAB, points, -1); };
    check = [=](double* rel, double* maxrel, std::string* why) {
      unsigned long long* cnt = alloc<unsigned long long>(2);
      CK(cudaMemset(cnt, 0, 16));
      check_labels<<<grid, 256>>>(LAB, ref, best, dots, CN, points, N, K, 1e-3f, cnt, cnt + 1);
      unsigned long long h[2];
      CK(cudaMemcpy(h, cnt, 16, cudaMemcpyDeviceToHost));
      CK(cudaFree(cnt));
      *rel = static_cast<double>(h[0]) / points;
      *maxrel = static_cast<double>(h[1]) / points;
      *why = "labels: " + std::to_string(h[0]) + " wrong, " + std::to_string(h[1]) + " ties within 1e-3 of " +
             std::to_string(points);
      g_json.integer("labels_wrong", static_cast<long long>(h[0]));
      g_json.integer("labels_ties", static_cast<long long>(h[1]));
      return h[0] == 0;
    };
  } else if (W == "attention-fwd") {
    const long long B = std::max(1LL, w.dim("B")), H = std::max(1LL, w.dim("H")), S = w.dim("S"), D = w.dim("D");
    const int causal = static_cast<int>(w.dim("causal"));
    const long long BH = B * H;
    flops = 4.0 * BH * S * S * D * (causal ? 0.5 : 1.0);
    auto* Q = bf16("Q", BH * S * D);
    auto* Kt = bf16("K", BH * S * D);
    auto* V = bf16("V", BH * S * D);
    auto* O = bf16("O", BH * S * D);
    cake_fill_random<<<grid, 256>>>(Q, BH * S * D, o.seed);
    cake_fill_random<<<grid, 256>>>(Kt, BH * S * D, ~o.seed);
    cake_fill_random<<<grid, 256>>>(V, BH * S * D, o.seed * 3 + 1);
    for (const auto& t : w.tensors)
      if (t.first == "VT") {
        auto* VT = bf16("VT", BH * S * D);
        transpose_sd<<<grid, 256>>>(V, VT, BH, S, D);
      }
    float* Sf = alloc<float>(BH * S * S);
    __nv_bfloat16* Pb = alloc<__nv_bfloat16>(BH * S * S);
    float* Vf = alloc<float>(BH * S * D);
    float* Of = alloc<float>(BH * S * D);
    __nv_bfloat16* Ob = alloc<__nv_bfloat16>(BH * S * D);
    to_f32<<<grid, 256>>>(V, Vf, BH * S * D);
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    // S[h] [S, S] = Q[h] K[h]^T (row-major): column-major TN like the GEMM
    auto qk = [=]() {
      CKB(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, S, S, D, &one, Kt, CUDA_R_16BF, D, S * D, Q,
                                     CUDA_R_16BF, D, S * D, &zero, Sf, CUDA_R_32F, S, S * S, BH, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
    };
    // O[h] [S, D] = P[h] V[h] (row-major): column-major O^T = V^T P^T: "NN"
    qk();
    softmax_rows<float><<<BH * S, 256>>>(Sf, nullptr, BH * S, S, scale, causal);
    CKB(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, D, S, S, &one, Vf, CUDA_R_32F, D, S * D, Sf,
                                   CUDA_R_32F, S, S * S, &zero, Of, CUDA_R_32F, D, S * D, BH, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT));
    CK(cudaGetLastError());
    baseline = [=]() {
      qk();
      softmax_rows<__nv_bfloat16><<<BH * S, 256>>>(Sf, Pb, BH * S, S, scale, causal);
      CKB(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, D, S, S, &one, V, CUDA_R_16BF, D, S * D, Pb,
                                     CUDA_R_16BF, S, S * S, &zero, Ob, CUDA_R_16BF, D, S * D, BH, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
    };
    baseline_name = "cuBLAS QK^T + softmax + PV (bf16 P)";
    prepare_check = [=]() { CK(cudaMemset(O, 0xFF, BH * S * D * 2)); };
    check = [=](double* rel, double* maxrel, std::string* why) {
      Check c = compare(O, Of, static_cast<size_t>(BH * S * D));
      *rel = c.rel_l2;
      *maxrel = c.max_err_rel;
      g_json.integer("nonfinite", static_cast<long long>(c.nonfinite));
      *why = "O against the f32 cuBLAS + softmax reference";
      return c.nonfinite == 0 && c.rel_l2 <= 2e-2 && c.max_err_rel <= 5e-2;
    };
  } else if (W == "row-sum" || W == "row-max") {
    const long long M = w.dim("M"), N = w.dim("N");
    const int is_max = W == "row-max";
    flops = static_cast<double>(M) * N;
    auto* X = bf16("X", M * N);
    float* Y = alloc<float>(M);
    float* R = alloc<float>(M);
    float* Yb = alloc<float>(M);
    buf["Y"] = {Y, static_cast<size_t>(M), 4};
    cake_fill_random<<<grid, 256>>>(X, M * N, o.seed);
    reduce_rows<<<(M + 7) / 8, 256>>>(X, R, M, N, is_max);
    CK(cudaGetLastError());
    baseline = [=]() { reduce_rows<<<(M + 7) / 8, 256>>>(X, Yb, M, N, is_max); };
    baseline_name = "one warp per row (the oracle kernel)";
    prepare_check = [=]() { CK(cudaMemset(Y, 0xFF, M * 4)); };
    check = [=](double* rel, double* maxrel, std::string* why) {
      Check c = compare(Y, R, static_cast<size_t>(M));
      *rel = c.rel_l2;
      *maxrel = c.max_err_rel;
      g_json.integer("nonfinite", static_cast<long long>(c.nonfinite));
      *why = "Y against the f32 one-warp-per-row reference";
      return c.nonfinite == 0 && c.rel_l2 <= (is_max ? 0.0 : 1e-3) && c.max_err_rel <= (is_max ? 0.0 : 1e-2);
    };
  } else {
    fail("error", "unknown workload '" + W + "'", 2);
  }

  // ---- the kernel's arguments, in the schedule's order
  std::vector<std::vector<CakeTensorArg>> per_launch(w.launches);
  for (long long l = 0; l < w.launches; ++l)
    for (const auto& [name, dims] : w.tensors) {
      auto it = buf.find(name);
      if (it == buf.end()) fail("error", "no buffer for contract tensor '" + name + "'", 2);
      size_t per = 0;
      CakeTensorArg t = denseTensorArg(nullptr, dims, &per);
      if (per * w.launches > it->second.elems) fail("error", "tensor '" + name + "' larger than its buffer", 2);
      t.data = static_cast<char*>(it->second.ptr) + l * per * it->second.elem_bytes;
      per_launch[l].push_back(t);
    }
  auto kernel_launch = [&]() {
    for (long long l = 0; l < w.launches; ++l) {
      CakeLaunchArgs a{per_launch[l].data(), static_cast<int>(per_launch[l].size()), w.i32.data(),
                       static_cast<int>(w.i32.size()), nullptr, 0, {0, 0, 0}};
      int e = launch_fn(&a, nullptr);
      if (e) fail("launch_error", std::string("cake_launch: ") + cudaGetErrorString(static_cast<cudaError_t>(e)), 3);
    }
  };

  // ---- correctness, timing, correctness again
  double rel = 0, maxrel = 0;
  std::string why;
  prepare_check();
  kernel_launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool correct = check(&rel, &maxrel, &why);
  const size_t flush_bytes = std::max<size_t>(2 * static_cast<size_t>(prop.l2CacheSize), 64u << 20);
  int4* flush = alloc<int4>(flush_bytes / sizeof(int4));
  Timing tk, tb;
  if (o.time) {
    CKP(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    time_with_cupti(kernel_launch, baseline, o.baseline, o.warmup, o.runs, flush, flush_bytes / sizeof(int4),
                    prop.multiProcessorCount * 4, &tk, &tb);
    prepare_check();
    kernel_launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double rel2 = 0, maxrel2 = 0;
    std::string why2;
    if (!check(&rel2, &maxrel2, &why2)) correct = false, why = why2 + " (after the timed runs)";
    rel = std::max(rel, rel2);
    maxrel = std::max(maxrel, maxrel2);
  }
  const double tflops = flops / (tk.median_ms * 1e-3) / 1e12;
  const double ratio = tb.median_ms / tk.median_ms;
  printf("%-24s %-16s rel=%.3e max_rel=%.3e  %9.4f ms  %8.1f TFLOP/s  baseline(%s) %9.4f ms  ratio %.3f  %s\n",
         W.c_str(), correct ? "correct" : "WRONG", rel, maxrel, tk.median_ms, tflops, baseline_name.c_str(),
         tb.median_ms, ratio, why.c_str());
  g_json.str("result", correct ? "ok" : "wrong");
  g_json.boolean("correct", correct);
  g_json.str("check", why);
  g_json.num("rel_error", rel);
  g_json.num("max_rel_error", maxrel);
  g_json.num("median_ms", tk.median_ms);
  g_json.num("min_ms", tk.min_ms);
  g_json.num("p90_ms", tk.p90_ms);
  g_json.integer("kernels_per_run", tk.kernels_per_run);
  g_json.num("tflops", tflops);
  g_json.str("baseline", baseline_name);
  g_json.num("baseline_ms", tb.median_ms);
  g_json.num("baseline_min_ms", tb.min_ms);
  g_json.num("sum_median_ms", tk.sum_median_ms);  // median_ms is the span (run_timing.h)
  g_json.num("baseline_sum_ms", tb.sum_median_ms);
  g_json.num("ratio", ratio);
  g_json.integer("runs", tk.samples);
  g_json.integer("launches", w.launches);
  g_json.integer("l2_flush_bytes", static_cast<long long>(flush_bytes));
  printf("%s\n", g_json.done().c_str());
  fflush(stdout);
  return correct ? 0 : 1;
}

}  // namespace wl
