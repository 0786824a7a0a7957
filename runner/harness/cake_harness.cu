// cake_harness: loads a kernel library (see cake_abi.h), checks it against
// cuBLAS on fresh random inputs with a poisoned output, and times it and
// cuBLAS with CUPTI kernel activity records after an L2 flush.
//
//   cake_harness --kernel k.so --m 4096 --n 4096 --k 4096 [--runs 50]
//                [--warmup 5] [--seed S] [--no-time] [--no-baseline]
//
// Split-K GEMM (two kernels, `cake run --split-k S`): --kernel is the partial
// kernel, --reduce the reduce kernel, both through the generic cake_launch;
// the harness allocates the f32 workspace W[S, M, N] (poisoned like C) and
// launches both per run on one stream (either may use programmatic dependent
// launch); the CUPTI time of a run is the span from the partial's start to
// the reduce's end (run_timing.h), the oracle checks the final C:
//   cake_harness --kernel P.so --reduce R.so --split S --m M --n N --k K
//                --tensor NAME:dims.. --i32 V..  (the partial's parameters, in order; NAME in A, B, W)
//                --rtensor NAME:dims.. --ri32 V.. (the reduce's; NAME in W, C)
//
// Kernel and cuBLAS runs are interleaved (each after its own L2 flush).
// Prints a table, then one JSON line (the last line of stdout). Exit status:
// 0 ran and correct, 1 ran and incorrect, 2 usage / load error, 3 CUDA error.
//
// The harness does not watch for hangs itself: runner::run() starts it as a
// child process with a timeout and reports "hang" if it has to kill it.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cake_abi.h"
#include "run_timing.h"

namespace {

struct Options {
  std::string kernel;
  int M = 4096, N = 4096, K = 4096;
  int runs = 50, warmup = 5;
  uint64_t seed = 0;
  bool seed_given = false;
  bool time = true, baseline = true;
  int samples = 64;
  std::string reduce;  // split-K: the reduce kernel library
  int split = 0;       // split-K: the number of K slices (W's outer size)
};

struct Json {
  std::string s = "{";
  void sep() {
    if (s.size() > 1) s += ", ";
  }
  void str(const char* k, const std::string& v) {
    sep();
    s += "\"" + std::string(k) + "\": \"";
    for (char c : v) {
      if (c == '"' || c == '\\') s += '\\';
      if (static_cast<unsigned char>(c) < 0x20) continue;
      s += c;
    }
    s += "\"";
  }
  void num(const char* k, double v) {
    sep();
    char b[64];
    if (std::isfinite(v))
      snprintf(b, sizeof b, "%.6g", v);
    else
      snprintf(b, sizeof b, "null");
    s += "\"" + std::string(k) + "\": " + b;
  }
  void integer(const char* k, long long v) {
    sep();
    s += "\"" + std::string(k) + "\": " + std::to_string(v);
  }
  void boolean(const char* k, bool v) {
    sep();
    s += "\"" + std::string(k) + "\": " + (v ? "true" : "false");
  }
  void null(const char* k) {
    sep();
    s += "\"" + std::string(k) + "\": null";
  }
  std::string done() const { return s + "}"; }
};

Json g_json;

[[noreturn]] void fail(const char* result, const std::string& msg, int code) {
  fprintf(stderr, "cake_harness: %s\n", msg.c_str());
  g_json.str("result", result);
  g_json.str("error", msg);
  if (std::string(result) == "load_error") g_json.boolean("compiled", false);
  printf("%s\n", g_json.done().c_str());
  fflush(stdout);
  exit(code);
}

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess)                                                                    \
      fail("cuda_error", std::string(#x) + ": " + cudaGetErrorString(e_), 3);                 \
  } while (0)
#define CKB(x)                                                                                \
  do {                                                                                        \
    cublasStatus_t e_ = (x);                                                                  \
    if (e_ != CUBLAS_STATUS_SUCCESS)                                                          \
      fail("cuda_error", std::string(#x) + ": cublas status " + std::to_string(e_), 3);       \
  } while (0)
#define CKP(x)                                                                                \
  do {                                                                                        \
    CUptiResult e_ = (x);                                                                     \
    if (e_ != CUPTI_SUCCESS) {                                                                \
      const char* m_ = nullptr;                                                               \
      cuptiGetResultString(e_, &m_);                                                          \
      fail("cuda_error", std::string(#x) + ": " + (m_ ? m_ : "cupti error"), 3);              \
    }                                                                                         \
  } while (0)

// ------------------------------------------------------------ device helpers
__device__ __forceinline__ uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void cake_fill_random(__nv_bfloat16* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint64_t r = splitmix(seed ^ (i * 0xD1B54A32D192ED03ull));
    const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);  // [0,1)
    p[i] = __float2bfloat16(2.0f * u - 1.0f);
  }
}

// Writes every 16-byte word of a buffer at least twice the L2 size, so the
// next kernel starts with a cold L2. Recognized in CUPTI records by its name.
__global__ void cake_l2_flush_kernel(int4* p, size_t n, int v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_int4(v, v + 1, v + 2, v + 3);
}

struct CmpPartial {
  double diff2, ref2, max_diff, max_ref;
  unsigned long long nonfinite;
};

__device__ __forceinline__ float cake_tof(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float cake_tof(float v) { return v; }

// The reference is bf16 (cuBLAS GEMM) or f32 (the attention / reduction oracles).
template <class T, class R>
__global__ void cake_compare(const T* c, const R* r, size_t n, CmpPartial* out) {
  double d2 = 0, r2 = 0, md = 0, mr = 0;
  unsigned long long nf = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const float cv = cake_tof(c[i]);
    const float rv = cake_tof(r[i]);
    if (!isfinite(cv)) {
      ++nf;
      continue;
    }
    const double d = static_cast<double>(cv) - rv;
    d2 += d * d;
    r2 += static_cast<double>(rv) * rv;
    md = fmax(md, fabs(d));
    mr = fmax(mr, fabs(static_cast<double>(rv)));
  }
  __shared__ CmpPartial sh[256];
  sh[threadIdx.x] = {d2, r2, md, mr, nf};
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      CmpPartial& a = sh[threadIdx.x];
      const CmpPartial& b = sh[threadIdx.x + s];
      a.diff2 += b.diff2;
      a.ref2 += b.ref2;
      a.max_diff = fmax(a.max_diff, b.max_diff);
      a.max_ref = fmax(a.max_ref, b.max_ref);
      a.nonfinite += b.nonfinite;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

// ------------------------------------------------------------------- CUPTI
using cake_harness::KernelRecord;
std::vector<KernelRecord> g_records;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
      g_records.push_back({k->start, k->end, k->name ? k->name : ""});
    }
  }
  free(buffer);
}

struct Timing {
  double median_ms = NAN, min_ms = NAN, max_ms = NAN, p90_ms = NAN;
  double sum_median_ms = NAN;  // the median of the runs' sums of kernel durations
  int samples = 0;
  int kernels_per_run = 0;
};

// The stream every GEMM launch goes to (flush, kernel, cuBLAS): a created
// stream, so that a kernel launched with programmatic dependent launch
// overlaps its predecessor as it would in an application; 0 (the legacy
// stream) for the generic workloads.
cudaStream_t g_stream = 0;

// CAKE_TIMING_RECORDS=FILE: append the raw CUPTI records of the timed runs
// (one JSON line: g_record_tag, then [name, start ns, end ns] per kernel), to
// see where a multi-kernel run's time goes (each kernel, the gaps, the overlap).
std::string g_record_tag;
void dump_records() {
  const char* path = getenv("CAKE_TIMING_RECORDS");
  if (!path || !*path) return;
  FILE* f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "{\"tag\": \"%s\", \"records\": [", g_record_tag.c_str());
  for (size_t i = 0; i < g_records.size(); ++i) {
    const bool flush = g_records[i].name.find("cake_l2_flush_kernel") != std::string::npos;
    std::string n = flush ? "cake_l2_flush_kernel" : g_records[i].name.substr(0, 64);
    for (char& c : n)
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
    fprintf(f, "%s[\"%s\", %llu, %llu]", i ? ", " : "", n.c_str(),
            static_cast<unsigned long long>(g_records[i].start), static_cast<unsigned long long>(g_records[i].end));
  }
  fprintf(f, "]}\n");
  fclose(f);
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times `launch_a` and `launch_b` (the kernel and cuBLAS) interleaved --
// flush, A, flush, B, flush, A, ... -- so both see the same clocks and
// temperature, and returns the median of each one's per-run GPU time: the
// span from its first kernel's start to its last kernel's end, from CUPTI
// records (run_timing.h says why the span and not the sum of durations).
// With no B, only A is timed.
template <class FA, class FB>
void time_with_cupti(FA launch_a, FB launch_b, bool with_b, int warmup, int runs, int4* flush_buf,
                     size_t flush_words, int flush_grid, Timing* ta, Timing* tb) {
  const int per = with_b ? 2 : 1;
  for (int i = 0; i < warmup; ++i) {
    cake_l2_flush_kernel<<<flush_grid, 512, 0, g_stream>>>(flush_buf, flush_words, i);
    launch_a();
    if (with_b) {
      cake_l2_flush_kernel<<<flush_grid, 512, 0, g_stream>>>(flush_buf, flush_words, i);
      launch_b();
    }
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  g_records.clear();
  CKP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  for (int i = 0; i < runs; ++i) {
    cake_l2_flush_kernel<<<flush_grid, 512, 0, g_stream>>>(flush_buf, flush_words, i);
    launch_a();
    if (with_b) {
      cake_l2_flush_kernel<<<flush_grid, 512, 0, g_stream>>>(flush_buf, flush_words, i);
      launch_b();
    }
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CKP(cuptiActivityFlushAll(1));
  CKP(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  dump_records();
  const cake_harness::RunTimes rt = cake_harness::splitRuns(g_records, per, "cake_l2_flush_kernel");
  if (rt.segments != runs * per)
    fail("cuda_error", "CUPTI returned " + std::to_string(rt.segments) + " flush records for " +
                           std::to_string(runs * per) + " runs", 3);
  Timing* out[2] = {ta, tb};
  for (int w = 0; w < per; ++w) {
    std::vector<double> v = rt.span_ms[w];
    Timing& t = *out[w];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    t.median_ms = median(v);
    t.min_ms = v.front();
    t.max_ms = v.back();
    t.p90_ms = v[std::min(n - 1, static_cast<size_t>(0.9 * n))];
    t.sum_median_ms = median(rt.sum_ms[w]);
    t.samples = static_cast<int>(n);
    t.kernels_per_run = rt.max_kernels[w];
  }
}

struct Check {
  double rel_l2 = NAN;       // ||c - ref||_2 / ||ref||_2
  double max_err_rel = NAN;  // max|c - ref| / max|ref|
  unsigned long long nonfinite = 0;
};

template <class T, class R>
Check compare(const T* c, const R* ref, size_t n) {
  const int blocks = 264;
  CmpPartial* d = nullptr;
  CK(cudaMalloc(&d, blocks * sizeof(CmpPartial)));
  cake_compare<<<blocks, 256>>>(c, ref, n, d);
  CK(cudaGetLastError());
  std::vector<CmpPartial> h(blocks);
  CK(cudaMemcpy(h.data(), d, blocks * sizeof(CmpPartial), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  CmpPartial t{0, 0, 0, 0, 0};
  for (const auto& p : h) {
    t.diff2 += p.diff2;
    t.ref2 += p.ref2;
    t.max_diff = std::max(t.max_diff, p.max_diff);
    t.max_ref = std::max(t.max_ref, p.max_ref);
    t.nonfinite += p.nonfinite;
  }
  Check c2;
  c2.rel_l2 = t.ref2 > 0 ? std::sqrt(t.diff2 / t.ref2) : (t.diff2 > 0 ? INFINITY : 0);
  c2.max_err_rel = t.max_ref > 0 ? t.max_diff / t.max_ref : t.max_diff;
  c2.nonfinite = t.nonfinite;
  return c2;
}

float bf2f(uint16_t v) {
  uint32_t u = static_cast<uint32_t>(v) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// float64 host reference on sampled entries: max |x - exact| / max|exact|,
// for the kernel's output and for cuBLAS's.
void sample_check(const Options& o, const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* C,
                  const __nv_bfloat16* R, std::mt19937_64& rng, double* kernel_err, double* cublas_err) {
  std::vector<uint16_t> arow(o.K), brow(o.K);
  double max_exact = 0, max_k = 0, max_c = 0;
  for (int s = 0; s < o.samples; ++s) {
    const int i = static_cast<int>(rng() % o.M), j = static_cast<int>(rng() % o.N);
    CK(cudaMemcpy(arow.data(), A + static_cast<size_t>(i) * o.K, o.K * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(brow.data(), B + static_cast<size_t>(j) * o.K, o.K * 2, cudaMemcpyDeviceToHost));
    uint16_t cv = 0, rv = 0;
    CK(cudaMemcpy(&cv, C + static_cast<size_t>(i) * o.N + j, 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&rv, R + static_cast<size_t>(i) * o.N + j, 2, cudaMemcpyDeviceToHost));
    double exact = 0;
    for (int k = 0; k < o.K; ++k) exact += static_cast<double>(bf2f(arow[k])) * bf2f(brow[k]);
    max_exact = std::max(max_exact, std::fabs(exact));
    const double ck = bf2f(cv);
    max_k = std::isfinite(ck) ? std::max(max_k, std::fabs(ck - exact)) : INFINITY;
    max_c = std::max(max_c, std::fabs(static_cast<double>(bf2f(rv)) - exact));
  }
  *kernel_err = max_exact > 0 ? max_k / max_exact : max_k;
  *cublas_err = max_exact > 0 ? max_c / max_exact : max_c;
}

// A dense row-major tensor argument of `dims` (outermost first) at `data`;
// `*elems` gets its element count.
CakeTensorArg denseTensorArg(void* data, const std::vector<long long>& dims, size_t* elems) {
  CakeTensorArg t{};
  t.data = data;
  t.rank = static_cast<int>(dims.size());
  size_t per = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.dims[d] = dims[d];
    t.strides[d] = static_cast<long long>(per);
    per *= static_cast<size_t>(dims[d]);
  }
  *elems = per;
  return t;
}

}  // namespace

#include "workloads.cuh"

namespace {

wl::Args g_wl;

// Split-K: the reduce kernel's parameters (the partial's are g_wl's).
std::vector<std::pair<std::string, std::vector<long long>>> g_reduce_tensors;
std::vector<int> g_reduce_i32;

// "NAME:4,128,64" -> {"NAME", {4, 128, 64}} appended to `into`
bool parseTensor(const std::string& t, std::vector<std::pair<std::string, std::vector<long long>>>& into) {
  const auto colon = t.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::vector<long long> dims;
  for (size_t i = colon + 1; i < t.size();) {
    char* end = nullptr;
    dims.push_back(strtoll(t.c_str() + i, &end, 10));
    if (end == t.c_str() + i || dims.back() <= 0) return false;
    i = static_cast<size_t>(end - t.c_str());
    if (i < t.size() && t[i] != ',') return false;
    ++i;
  }
  if (dims.empty() || dims.size() > 5) return false;
  into.push_back({t.substr(0, colon), dims});
  return true;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--kernel" && (v = next())) o.kernel = v;
    else if (a == "--m" && (v = next())) o.M = atoi(v);
    else if (a == "--n" && (v = next())) o.N = atoi(v);
    else if (a == "--k" && (v = next())) o.K = atoi(v);
    else if (a == "--runs" && (v = next())) o.runs = atoi(v);
    else if (a == "--warmup" && (v = next())) o.warmup = atoi(v);
    else if (a == "--samples" && (v = next())) o.samples = atoi(v);
    else if (a == "--seed" && (v = next())) o.seed = strtoull(v, nullptr, 0), o.seed_given = true;
    else if (a == "--workload" && (v = next())) g_wl.workload = v;
    else if (a == "--dim" && (v = next())) {
      const std::string d = v;
      const auto eq = d.find('=');
      if (eq == std::string::npos) return false;
      g_wl.dims[d.substr(0, eq)] = strtoll(d.c_str() + eq + 1, nullptr, 10);
    } else if (a == "--tensor" && (v = next())) {
      if (!parseTensor(v, g_wl.tensors)) return false;
    } else if (a == "--rtensor" && (v = next())) {
      if (!parseTensor(v, g_reduce_tensors)) return false;
    } else if (a == "--i32" && (v = next())) g_wl.i32.push_back(atoi(v));
    else if (a == "--ri32" && (v = next())) g_reduce_i32.push_back(atoi(v));
    else if (a == "--reduce" && (v = next())) o.reduce = v;
    else if (a == "--split" && (v = next())) o.split = atoi(v);
    else if (a == "--launches" && (v = next())) g_wl.launches = std::max(1LL, atoll(v));
    else if (a == "--no-time") o.time = false;
    else if (a == "--no-baseline") o.baseline = false;
    else return false;
  }
  return !o.kernel.empty() && o.M > 0 && o.N > 0 && o.K > 0 && o.runs > 0 && o.warmup >= 0 &&
         o.reduce.empty() == (o.split == 0) && o.split >= 0;
}

// One kernel's cake_launch arguments from NAME:dims items: the buffer of each
// contract tensor by name, dense row-major strides; a tensor whose dims hold
// more elements than its buffer is refused (it would run past it).
struct NamedBuffer {
  void* ptr;
  size_t elems;
};
std::vector<CakeTensorArg> launchTensors(const std::vector<std::pair<std::string, std::vector<long long>>>& items,
                                         const std::vector<std::pair<std::string, NamedBuffer>>& bufs) {
  std::vector<CakeTensorArg> out;
  for (const auto& [name, dims] : items) {
    const NamedBuffer* b = nullptr;
    for (const auto& [n, nb] : bufs)
      if (n == name) b = &nb;
    if (!b) fail("error", "no buffer for split-K tensor '" + name + "' (expected A, B, W or C)", 2);
    size_t per = 0;
    CakeTensorArg t = denseTensorArg(b->ptr, dims, &per);
    if (per != b->elems) fail("error", "split-K tensor '" + name + "' does not match its buffer's size", 2);
    out.push_back(t);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    fprintf(stderr,
            "usage: cake_harness --kernel K.so [--m M --n N --k K] [--runs 50] [--warmup 5] [--seed S]\n"
            "                    [--samples 64] [--no-time] [--no-baseline]\n"
            "       cake_harness --kernel K.so --workload W --dim NAME=V.. --tensor NAME:d0,d1,...  --i32 V.. [--launches L]\n"
            "       cake_harness --kernel P.so --reduce R.so --split S --m M --n N --k K --tensor .. --i32 .. --rtensor .. --ri32 ..\n");
    return 2;
  }
  if (!o.seed_given) o.seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  g_json.str("kernel_lib", o.kernel);
  const bool generic = !g_wl.workload.empty() && g_wl.workload != "gemm";
  if (!generic) {
    g_json.integer("M", o.M);
    g_json.integer("N", o.N);
    g_json.integer("K", o.K);
  }
  g_json.integer("seed", static_cast<long long>(o.seed & 0x7FFFFFFFFFFFFFFFull));
  g_json.null("verified");  // the harness does not know; runner::run() fills it in

  // ---- load the kernel library
  void* lib = dlopen(o.kernel.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail("load_error", std::string("dlopen: ") + dlerror(), 2);
  auto abi = reinterpret_cast<cake_abi_version_fn>(dlsym(lib, "cake_abi_version"));
  auto info_fn = reinterpret_cast<cake_kernel_info_fn>(dlsym(lib, "cake_kernel_info"));
  auto launch_fn = reinterpret_cast<cake_gemm_launch_fn>(dlsym(lib, "cake_gemm_launch"));
  const bool split = !o.reduce.empty();
  if (!abi || !info_fn || (!launch_fn && !generic && !split)) fail("load_error", "kernel library lacks the cake ABI symbols", 2);
  if (abi() != CAKE_ABI_VERSION) fail("load_error", "kernel library ABI version mismatch", 2);
  CakeKernelInfo info{};
  info_fn(&info);
  // split-K: the reduce kernel's library; both launch through cake_launch
  cake_launch_fn partial_fn = nullptr, reduce_fn = nullptr;
  std::string kernel_name = info.name ? info.name : "?";
  if (split) {
    void* rlib = dlopen(o.reduce.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!rlib) fail("load_error", std::string("dlopen: ") + dlerror(), 2);
    auto rabi = reinterpret_cast<cake_abi_version_fn>(dlsym(rlib, "cake_abi_version"));
    auto rinfo_fn = reinterpret_cast<cake_kernel_info_fn>(dlsym(rlib, "cake_kernel_info"));
    partial_fn = reinterpret_cast<cake_launch_fn>(dlsym(lib, "cake_launch"));
    reduce_fn = reinterpret_cast<cake_launch_fn>(dlsym(rlib, "cake_launch"));
    if (!rabi || !rinfo_fn || !partial_fn || !reduce_fn)
      fail("load_error", "split-K kernel libraries lack cake_launch", 2);
    if (rabi() != CAKE_ABI_VERSION) fail("load_error", "reduce library ABI version mismatch", 2);
    CakeKernelInfo rinfo{};
    rinfo_fn(&rinfo);
    kernel_name += std::string("+") + (rinfo.name ? rinfo.name : "?");
    g_json.integer("split", o.split);
  }
  g_json.str("kernel", kernel_name);
  g_record_tag = kernel_name + " " + std::to_string(o.M) + "x" + std::to_string(o.N) + "x" + std::to_string(o.K) +
                 (split ? " s" + std::to_string(o.split) : "");
  g_json.str("target", info.target ? info.target : "?");
  g_json.boolean("compiled", true);
  if (generic) return wl::run(o, g_wl, lib);
  if (!split && ((info.m_multiple > 1 && o.M % info.m_multiple) || (info.n_multiple > 1 && o.N % info.n_multiple) ||
                 (info.k_multiple > 1 && o.K % info.k_multiple)))
    fail("unsupported_shape", "shape not a multiple of what the kernel requires", 2);

  // ---- device and buffers
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_json.str("device", prop.name);
  const size_t nA = static_cast<size_t>(o.M) * o.K, nB = static_cast<size_t>(o.N) * o.K,
               nC = static_cast<size_t>(o.M) * o.N;
  __nv_bfloat16 *A, *B, *C, *R;
  CK(cudaMalloc(&A, nA * 2));
  CK(cudaMalloc(&B, nB * 2));
  CK(cudaMalloc(&C, nC * 2));
  CK(cudaMalloc(&R, nC * 2));
  const size_t flush_bytes = std::max<size_t>(2 * static_cast<size_t>(prop.l2CacheSize), 64u << 20);
  int4* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));
  const size_t flush_words = flush_bytes / sizeof(int4);
  const int flush_grid = prop.multiProcessorCount * 4;

  cake_fill_random<<<prop.multiProcessorCount * 8, 256>>>(A, nA, o.seed);
  cake_fill_random<<<prop.multiProcessorCount * 8, 256>>>(B, nB, ~o.seed);
  CK(cudaGetLastError());
  CK(cudaMemset(C, 0xFF, nC * 2));  // poison: 0xFFFF is a bf16 NaN
  CK(cudaMemset(R, 0xFF, nC * 2));

  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  CK(cudaStreamCreate(&g_stream));  // blocking: ordered after the memsets and fills on the legacy stream
  CKB(cublasSetStream(handle, g_stream));
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major C[M,N] = A[M,K] B[N,K]^T is column-major C^T[N,M] = B^T' A: "TN".
  auto cublas_launch = [&]() {
    CKB(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, o.N, o.M, o.K, &alpha, B, CUDA_R_16BF, o.K, A,
                     CUDA_R_16BF, o.K, &beta, R, CUDA_R_16BF, o.N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  CakeGemmArgs args{A, B, C, o.M, o.N, o.K, o.K, o.K, o.N};
  // split-K: the f32 workspace W[S, M, N], poisoned (0xFFFFFFFF is an f32 NaN)
  // so a slice the partial kernel leaves unwritten reaches C as a NaN
  float* Wk = nullptr;
  std::vector<CakeTensorArg> partial_t, reduce_t;
  if (split) {
    const size_t nW = static_cast<size_t>(o.split) * nC;
    CK(cudaMalloc(&Wk, nW * sizeof(float)));
    CK(cudaMemset(Wk, 0xFF, nW * sizeof(float)));
    const std::vector<std::pair<std::string, NamedBuffer>> bufs = {
        {"A", {A, nA}}, {"B", {B, nB}}, {"C", {C, nC}}, {"W", {Wk, nW}}};
    partial_t = launchTensors(g_wl.tensors, bufs);
    reduce_t = launchTensors(g_reduce_tensors, bufs);
  }
  auto kernel_launch = [&]() {
    if (split) {
      CakeLaunchArgs p{partial_t.data(), static_cast<int>(partial_t.size()), g_wl.i32.data(),
                       static_cast<int>(g_wl.i32.size()), nullptr, 0, {0, 0, 0}};
      CakeLaunchArgs r{reduce_t.data(), static_cast<int>(reduce_t.size()), g_reduce_i32.data(),
                       static_cast<int>(g_reduce_i32.size()), nullptr, 0, {0, 0, 0}};
      int e = partial_fn(&p, g_stream);
      if (!e) e = reduce_fn(&r, g_stream);
      if (e) fail("launch_error", std::string("cake_launch (split-K): ") + cudaGetErrorString(static_cast<cudaError_t>(e)), 3);
      return;
    }
    int e = launch_fn(&args, g_stream);
    if (e) fail("launch_error", std::string("cake_gemm_launch: ") + cudaGetErrorString(static_cast<cudaError_t>(e)), 3);
  };

  // ---- correctness
  cublas_launch();
  CK(cudaDeviceSynchronize());
  kernel_launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  Check chk = compare(C, R, nC);
  std::mt19937_64 rng(o.seed);
  double sample_kernel = NAN, sample_cublas = NAN;
  sample_check(o, A, B, C, R, rng, &sample_kernel, &sample_cublas);
  const double tol_rel = 1e-2, tol_max = 5e-2, tol_sample = 2e-2;
  bool correct = chk.nonfinite == 0 && chk.rel_l2 <= tol_rel && chk.max_err_rel <= tol_max &&
                 sample_kernel <= tol_sample;

  // ---- timing
  Timing tk, tb;
  if (o.time) {
    CKP(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    time_with_cupti(kernel_launch, cublas_launch, o.baseline, o.warmup, o.runs, flush, flush_words, flush_grid, &tk,
                    &tb);
    // re-check after the timed runs (a race shows up as a moving error)
    CK(cudaMemset(C, 0xFF, nC * 2));
    if (Wk) CK(cudaMemset(Wk, 0xFF, static_cast<size_t>(o.split) * nC * sizeof(float)));
    kernel_launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    Check again = compare(C, R, nC);
    if (!(again.nonfinite == 0 && again.rel_l2 <= tol_rel && again.max_err_rel <= tol_max)) correct = false;
    chk.rel_l2 = std::max(chk.rel_l2, again.rel_l2);
    chk.max_err_rel = std::max(chk.max_err_rel, again.max_err_rel);
    chk.nonfinite = std::max(chk.nonfinite, again.nonfinite);
  }

  const double flops = 2.0 * o.M * o.N * static_cast<double>(o.K);
  const double tflops = flops / (tk.median_ms * 1e-3) / 1e12;
  const double btflops = flops / (tb.median_ms * 1e-3) / 1e12;
  const double ratio = tb.median_ms / tk.median_ms;

  printf("%-24s %-8s %6s %6s %6s %10s %10s %9s %9s %9s\n", "kernel", "target", "M", "N", "K", "rel_l2",
         "max_rel", "ms", "TFLOP/s", "nonfinite");
  printf("%-24s %-8s %6d %6d %6d %10.3e %10.3e %9.4f %9.1f %9llu\n", kernel_name.c_str(), info.target, o.M, o.N, o.K,
         chk.rel_l2, chk.max_err_rel, tk.median_ms, tflops, chk.nonfinite);
  if (o.time && o.baseline)
    printf("%-24s %-8s %6d %6d %6d %10s %10s %9.4f %9.1f %9s\n", "cublasGemmEx", "-", o.M, o.N, o.K, "-", "-",
           tb.median_ms, btflops, "-");
  printf("correct=%s  sample_err(kernel)=%.3e sample_err(cublas)=%.3e  ratio(cublas_ms/kernel_ms)=%.3f  "
         "runs=%d kernels/run: kernel %d, cublas %d\n",
         correct ? "yes" : "NO", sample_kernel, sample_cublas, ratio, tk.samples, tk.kernels_per_run,
         tb.kernels_per_run);

  g_json.str("result", correct ? "ok" : "wrong");
  g_json.boolean("correct", correct);
  g_json.num("rel_error", chk.rel_l2);
  g_json.num("max_rel_error", chk.max_err_rel);
  g_json.num("sample_error", sample_kernel);
  g_json.num("cublas_sample_error", sample_cublas);
  g_json.integer("nonfinite", static_cast<long long>(chk.nonfinite));
  g_json.num("median_ms", tk.median_ms);
  g_json.num("min_ms", tk.min_ms);
  g_json.num("p90_ms", tk.p90_ms);
  g_json.num("baseline_min_ms", tb.min_ms);
  // median_ms / baseline_ms are spans (first kernel start to last kernel end, run_timing.h);
  // the medians of the sums of kernel durations, the measure of records before the span:
  g_json.num("sum_median_ms", tk.sum_median_ms);
  g_json.num("baseline_sum_ms", tb.sum_median_ms);
  g_json.num("tflops", tflops);
  g_json.num("baseline_ms", tb.median_ms);
  g_json.num("baseline_tflops", btflops);
  g_json.num("ratio", ratio);
  g_json.integer("runs", tk.samples);
  g_json.integer("kernels_per_run", tk.kernels_per_run);
  g_json.integer("l2_flush_bytes", static_cast<long long>(flush_bytes));
  printf("%s\n", g_json.done().c_str());
  fflush(stdout);

  cublasDestroy(handle);
  cudaStreamDestroy(g_stream);
  if (Wk) cudaFree(Wk);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(R);
  cudaFree(flush);
  return correct ? 0 : 1;
}
