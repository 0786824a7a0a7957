// generic_check: runs a lowered non-GEMM kernel library through the generic
// launcher `cake_launch` (abi/cake_abi.h) and compares it with a
// CPU reference. The harness has only a GEMM oracle; this checks the
// lowering's fragment layouts, reductions, broadcasts and RS wgmma on
// three corpus schedules:
//
//   generic_check --kernel K.so --kind rowsum   corpus/basics/explicit_phase.cake     Y[r] = sum_c X[r, c]
//   generic_check --kernel K.so --kind colsum   corpus/copy/sm90_self_prefetch.cake   Y[c] = sum_r X[r, c]
//   generic_check --kernel K.so --kind attn     corpus/attention/sm90_fa3_fwd.cake    O = softmax(Q K^T / 8) V
//
// Prints one JSON line: {"kind", "correct", "max_err", "tol", "ms"}. Exit 0 if correct.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cake_abi.h"

#include "cuda_check.h"

namespace {

struct Dev {
  void* p = nullptr;
  size_t bytes = 0;
};

Dev upload(const void* h, size_t bytes) {
  Dev d;
  d.bytes = bytes;
  CK(cudaMalloc(&d.p, bytes));
  CK(cudaMemcpy(d.p, h, bytes, cudaMemcpyHostToDevice));
  return d;
}

CakeTensorArg tensor(void* p, std::vector<long long> dims) {
  CakeTensorArg t{};
  t.data = p;
  t.rank = static_cast<int>(dims.size());
  long long s = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.dims[i] = dims[i];
    t.strides[i] = s;
    s *= dims[i];
  }
  return t;
}

std::vector<__nv_bfloat16> randomBf16(size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<__nv_bfloat16> v(n);
  for (auto& x : v) x = __float2bfloat16(u(g));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string lib, kind;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--kernel")) lib = argv[i + 1];
    if (!strcmp(argv[i], "--kind")) kind = argv[i + 1];
  }
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("{\"result\": \"load_error\", \"detail\": \"%s\"}\n", dlerror());
    return 2;
  }
  auto launch = reinterpret_cast<cake_launch_fn>(dlsym(h, "cake_launch"));
  if (!launch) {
    printf("{\"result\": \"load_error\", \"detail\": \"no cake_launch\"}\n");
    return 2;
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double maxErr = 0, tol = 0, ref_scale = 1;
  float ms = 0;
  auto run = [&](std::vector<CakeTensorArg> ts, std::vector<int> i32) {
    CakeLaunchArgs a{};
    a.tensors = ts.data();
    a.num_tensors = static_cast<int>(ts.size());
    a.i32 = i32.data();
    a.num_i32 = static_cast<int>(i32.size());
    int e = launch(&a, nullptr);  // warm-up and result
    if (e) {
      printf("{\"kind\": \"%s\", \"result\": \"launch_error\", \"detail\": \"%s\"}\n", kind.c_str(),
             cudaGetErrorString(static_cast<cudaError_t>(e)));
      exit(3);
    }
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    for (int r = 0; r < 10; ++r) launch(&a, nullptr);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ms /= 10;
  };
  if (kind == "rowsum" || kind == "colsum") {
    const int R = kind == "rowsum" ? 1000 : 333, C = kind == "rowsum" ? 296 : 1000;
    auto x = randomBf16(static_cast<size_t>(R) * C, 7);
    const int ny = kind == "rowsum" ? R : C;
    std::vector<float> y(ny, NAN), ref(ny, 0.0);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) ref[kind == "rowsum" ? r : c] += __bfloat162float(x[static_cast<size_t>(r) * C + c]);
    Dev dx = upload(x.data(), x.size() * 2), dy = upload(y.data(), y.size() * 4);
    if (kind == "rowsum")
      run({tensor(dx.p, {R, C}), tensor(dy.p, {R, 1})}, {C});   // rowsum_explicit_phase(X, Y, D)
    else
      run({tensor(dx.p, {R, C}), tensor(dy.p, {1, C})}, {R});   // colsum_self_prefetch(X, Y, R)
    CK(cudaMemcpy(y.data(), dy.p, y.size() * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < ny; ++i) maxErr = std::fmax(maxErr, std::isfinite(y[i]) ? std::fabs(y[i] - ref[i]) : 1e30);
    tol = 1e-3 * (kind == "rowsum" ? C : R);
  } else if (kind == "attn") {
    const int H = 2, SQ = 256, SK = 384, D = 64;
    auto q = randomBf16(static_cast<size_t>(H) * SQ * D, 11), k = randomBf16(static_cast<size_t>(H) * SK * D, 12),
         vt = randomBf16(static_cast<size_t>(H) * D * SK, 13);
    std::vector<__nv_bfloat16> o(static_cast<size_t>(H) * SQ * D, __float2bfloat16(NAN));
    Dev dq = upload(q.data(), q.size() * 2), dk = upload(k.data(), k.size() * 2), dv = upload(vt.data(), vt.size() * 2),
        dout = upload(o.data(), o.size() * 2);
    // fa3_fwd(Q, K, Vt, O, seqlen_q, seqlen_k)
    run({tensor(dq.p, {H, SQ, D}), tensor(dk.p, {H, SK, D}), tensor(dv.p, {H, D, SK}), tensor(dout.p, {H, SQ, D})},
        {SQ, SK});
    CK(cudaMemcpy(o.data(), dout.p, o.size() * 2, cudaMemcpyDeviceToHost));
    auto f = [](__nv_bfloat16 v) { return static_cast<double>(__bfloat162float(v)); };
    double omax = 0;
    for (int hh = 0; hh < H; ++hh)
      for (int i = 0; i < SQ; ++i) {
        std::vector<double> s(SK);
        double m = -1e300, l = 0;
        for (int j = 0; j < SK; ++j) {
          double acc = 0;
          for (int d = 0; d < D; ++d) acc += f(q[(static_cast<size_t>(hh) * SQ + i) * D + d]) * f(k[(static_cast<size_t>(hh) * SK + j) * D + d]);
          s[j] = acc / 8.0;
          m = std::fmax(m, s[j]);
        }
        for (int j = 0; j < SK; ++j) l += (s[j] = std::exp(s[j] - m));
        for (int d = 0; d < D; ++d) {
          double acc = 0;
          for (int j = 0; j < SK; ++j) acc += s[j] * f(vt[(static_cast<size_t>(hh) * D + d) * SK + j]);
          const double ref = acc / l, got = f(o[(static_cast<size_t>(hh) * SQ + i) * D + d]);
          omax = std::fmax(omax, std::fabs(ref));
          maxErr = std::fmax(maxErr, std::isfinite(got) ? std::fabs(got - ref) : 1e30);
        }
      }
    ref_scale = omax;
    tol = 2e-2 * omax;  // P is rounded to bf16 before P.V, O to bf16
  } else {
    printf("{\"result\": \"error\", \"detail\": \"unknown --kind\"}\n");
    return 2;
  }
  const bool ok = maxErr <= tol;
  printf("{\"kind\": \"%s\", \"correct\": %s, \"max_err\": %.3g, \"tol\": %.3g, \"scale\": %.3g, \"ms\": %.4f}\n",
         kind.c_str(), ok ? "true" : "false", maxErr, tol, ref_scale, ms);
  return ok ? 0 : 1;
}
