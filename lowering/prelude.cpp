// Fixed text of the generated .cu files: includes, the kernel ABI, and the
// inline-PTX helpers lowered kernels use. Generated per-shape helpers
// (wgmma with its N accumulator registers) are made in wgmmaHelper().
#include "lowering/prelude.h"

#include <fmt/format.h>

namespace cake::lowering {

const char* preludeGlobalText() {
  return R"PRELUDE(#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// ---- cake kernel ABI (abi/cake_abi.h) ------------------------------------
#if !defined(CAKE_ABI_VERSION) && __has_include("cake_abi.h")
#include "cake_abi.h"
#endif
#ifndef CAKE_ABI_VERSION
#define CAKE_ABI_VERSION 1
typedef struct CakeGemmArgs {
  const void* A; const void* B; void* C;
  int M, N, K;
  int lda, ldb, ldc;
} CakeGemmArgs;
typedef struct CakeKernelInfo {
  const char* name; const char* target;
  int block_m, block_n, block_k, stages;
  int m_multiple, n_multiple, k_multiple;
} CakeKernelInfo;
typedef struct CakeTensorArg {
  void* data; int rank;
  long long dims[5]; long long strides[5];
} CakeTensorArg;
typedef struct CakeLaunchArgs {
  const CakeTensorArg* tensors; int num_tensors;
  const int* i32; int num_i32;
  const float* f32; int num_f32;
  unsigned grid[3];
} CakeLaunchArgs;
#endif
)PRELUDE";
}

const char* preludeText() {
  return R"PRELUDE(
// ---- integer helpers with Python semantics (IR.md: // and % floor) -------
__host__ __device__ __forceinline__ int cake_floordiv(int a, int b) {
  const int q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__host__ __device__ __forceinline__ int cake_mod(int a, int b) {
  const int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__host__ __device__ __forceinline__ int cake_cdiv(int a, int b) { return -cake_floordiv(-a, b); }
// Ring slot and phase parity of an iteration known to be >= 0: unsigned, so
// a power-of-two count is a mask and a shift (signed % and / need sign fix-ups
// on the mainloop's issue path).
template <unsigned N>
__host__ __device__ __forceinline__ int cake_slot(int i) { return static_cast<int>(static_cast<unsigned>(i) % N); }
template <unsigned N>
__host__ __device__ __forceinline__ unsigned cake_parity(int i) { return (static_cast<unsigned>(i) / N) & 1u; }
__host__ __device__ __forceinline__ int cake_min(int a, int b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ int cake_max(int a, int b) { return a > b ? a : b; }

// Extents of a tensor read or written element-wise: sizes and strides in
// elements, outermost first (the innermost stride is 1).
template <int N>
struct cake_ext {
  long long d[N];
  long long s[N];
};

// Byte offset inside a swizzled tile (the pattern TMA writes for
// CU_TENSOR_MAP_SWIZZLE_{32,64,128}B): 16-byte chunk bits [4, 4+n) are
// XORed with the row bits [7, 7+n). The tile base is aligned to the pattern
// period (256 / 512 / 1024 B), so offsets and addresses swizzle alike.
template <int SWIZZLE_BYTES>
__device__ __forceinline__ uint32_t cake_swz(uint32_t off) {
  if constexpr (SWIZZLE_BYTES == 128) return off ^ ((off >> 3) & 0x70u);
  else if constexpr (SWIZZLE_BYTES == 64) return off ^ ((off >> 3) & 0x30u);
  else if constexpr (SWIZZLE_BYTES == 32) return off ^ ((off >> 3) & 0x10u);
  else return off;
}

// ---- shared memory, mbarriers -------------------------------------------
__device__ __forceinline__ uint32_t cake_smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cake_mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void cake_fence_mbarrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void cake_mbar_arrive(uint32_t bar, uint32_t count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#else
  for (uint32_t i = 0; i < count; ++i)
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
#endif
}
__device__ __forceinline__ void cake_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#endif
}
__device__ __forceinline__ void cake_mbar_wait(uint32_t bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@!P1 bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#else
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "WAIT_%=:\n"
      "mbarrier.test_wait.parity.shared.b64 P1, [%0], %1;\n"
      "@!P1 bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#endif
}
// bar.sync / bar.arrive on a named barrier (id 0 is __syncthreads)
__device__ __forceinline__ void cake_bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void cake_bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void cake_fence_proxy_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Keeps a guarded block a branch. The compiler if-converts a block that only writes registers into one
// select per register: an mma.sync accumulator zeroed under init=(k == 0) cost 128 selects on every
// k-block for 64 MMAs (FSEL in the sm_80 SASS; ptxas for sm_90 happened to hoist them). An empty volatile asm cannot be speculated, so the block stays behind its
// (uniform) branch and runs only when the guard holds.
__device__ __forceinline__ void cake_keep_branch() { asm volatile(""); }

// A value the compiler must take as computed here. A fragment's addresses into a staging slot depend on
// the lane and warp only, so NVVM hoists them out of a persistent kernel's tile loop, where an unrolled
// epilogue's 32 addresses per chunk stay live across the mainloop beside the accumulator and spill (the
// 128x192 ping-pong: 164 B). Passing the thread's row through this volatile asm keeps each copy's
// addresses inside the copy.
__device__ __forceinline__ uint32_t cake_here(uint32_t x) {
  asm volatile("mov.b32 %0, %0;" : "+r"(x));
  return x;
}
// The other way round: a stepped cp.async copy's per-thread offsets, computed once at the role's start,
// through this asm stay there; without it NVVM folds them into each copy's address sum inside the
// k-block loop (docs/gpu.md "sm_80: hoisted copy offsets and the k-block boundary").
__device__ __forceinline__ long long cake_here(long long x) {
  asm volatile("mov.b64 %0, %0;" : "+l"(x));
  return x;
}

// exp2 as one MUFU.EX2: ex2.approx.ftz (exp2f's ex2.approx without .ftz makes ptxas wrap every
// MUFU in a compare and two predicated multiplies to produce subnormal results; lm.unary exp2 is
// documented as approximate with subnormals flushed to zero, docs/ir-reference.md)
__device__ __forceinline__ float cake_exp2(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return exp2f(x);
#endif
}

// ---- element conversions (compute ops work in float, or int when all i32) --
__device__ __forceinline__ float cake_f32(float x) { return x; }
__device__ __forceinline__ float cake_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float cake_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float cake_f32(int x) { return static_cast<float>(x); }
__device__ __forceinline__ float cake_f32(int8_t x) { return static_cast<float>(x); }
__device__ __forceinline__ float cake_f32(__nv_fp8_e4m3 x) { return static_cast<float>(x); }
__device__ __forceinline__ float cake_f32(__nv_fp8_e5m2 x) { return static_cast<float>(x); }
__device__ __forceinline__ int cake_i32(int x) { return x; }
__device__ __forceinline__ int cake_i32(int8_t x) { return x; }
template <typename T> __device__ __forceinline__ T cake_cvt(float x);
template <> __device__ __forceinline__ float cake_cvt<float>(float x) { return x; }
template <> __device__ __forceinline__ __nv_bfloat16 cake_cvt<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ __half cake_cvt<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ int cake_cvt<int>(float x) { return __float2int_rz(x); }
template <> __device__ __forceinline__ int8_t cake_cvt<int8_t>(float x) {
  return static_cast<int8_t>(__float2int_rz(fminf(fmaxf(x, -128.f), 127.f)));
}
template <> __device__ __forceinline__ __nv_fp8_e4m3 cake_cvt<__nv_fp8_e4m3>(float x) { return __nv_fp8_e4m3(x); }
template <> __device__ __forceinline__ __nv_fp8_e5m2 cake_cvt<__nv_fp8_e5m2>(float x) { return __nv_fp8_e5m2(x); }
// two conversions at once: bf16 / f16 pairs take one cvt.rn.{bf16,f16}x2.f32 (F2FP) instead of two
template <typename T> __device__ __forceinline__ void cake_cvt2(float a, float b, T& x, T& y) {
  x = cake_cvt<T>(a);
  y = cake_cvt<T>(b);
}
template <> __device__ __forceinline__ void cake_cvt2<__nv_bfloat16>(float a, float b, __nv_bfloat16& x, __nv_bfloat16& y) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
  x = v.x;
  y = v.y;
}
template <> __device__ __forceinline__ void cake_cvt2<__half>(float a, float b, __half& x, __half& y) {
  const __half2 v = __floats2half2_rn(a, b);
  x = v.x;
  y = v.y;
}
// float -> bf16, round to nearest even, in integer arithmetic: the same bits as
// cvt.rn.bf16.f32 for every non-NaN input (a NaN gives the NaN 0x7FFF). Used
// where the source is a transposed wgmma accumulator: the F2F conversion of
// those registers made ptxas serialise every wgmma of the kernel (C7514,
// docs/gpu.md "Decode, session 15"); other types convert as cake_cvt.
template <typename T> __device__ __forceinline__ T cake_cvtr(float x) { return cake_cvt<T>(x); }
template <> __device__ __forceinline__ __nv_bfloat16 cake_cvtr<__nv_bfloat16>(float x) {
  const uint32_t u = __float_as_uint(x);
  const uint32_t r = (x != x) ? 0x7FFFu : ((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  return __ushort_as_bfloat16(static_cast<unsigned short>(r));
}
template <typename T> __device__ __forceinline__ T cake_cvti(int x) { return cake_cvt<T>(static_cast<float>(x)); }
template <> __device__ __forceinline__ int cake_cvti<int>(int x) { return x; }
template <> __device__ __forceinline__ int8_t cake_cvti<int8_t>(int x) { return static_cast<int8_t>(x); }

// ld.shared / st.shared of one element at a shared-memory address
template <typename T>
__device__ __forceinline__ T cake_lds(uint32_t a) {
  T v;
  if constexpr (sizeof(T) == 1) {
    uint16_t r;
    asm volatile("ld.shared.u8 %0, [%1];" : "=h"(r) : "r"(a) : "memory");
    const uint8_t b = static_cast<uint8_t>(r);
    memcpy(&v, &b, 1);
  } else if constexpr (sizeof(T) == 2) {
    uint16_t r;
    asm volatile("ld.shared.b16 %0, [%1];" : "=h"(r) : "r"(a) : "memory");
    memcpy(&v, &r, 2);
  } else {
    uint32_t r;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
    memcpy(&v, &r, 4);
  }
  return v;
}
template <typename T>
__device__ __forceinline__ void cake_sts(uint32_t a, T v) {
  if constexpr (sizeof(T) == 1) {
    uint8_t b;
    memcpy(&b, &v, 1);
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "h"(static_cast<uint16_t>(b)) : "memory");
  } else if constexpr (sizeof(T) == 2) {
    uint16_t r;
    memcpy(&r, &v, 2);
    asm volatile("st.shared.b16 [%0], %1;" ::"r"(a), "h"(r) : "memory");
  } else {
    uint32_t r;
    memcpy(&r, &v, 4);
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(r) : "memory");
  }
}
// two consecutive elements at once (the pair never crosses a 16-byte chunk)
__device__ __forceinline__ void cake_sts_pair(uint32_t a, __nv_bfloat16 x, __nv_bfloat16 y) {
  __nv_bfloat162 v = __halves2bfloat162(x, y);
  uint32_t r;
  memcpy(&r, &v, 4);
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(r) : "memory");
}
__device__ __forceinline__ void cake_sts_pair(uint32_t a, __half x, __half y) {
  __half2 v = __halves2half2(x, y);
  uint32_t r;
  memcpy(&r, &v, 4);
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(r) : "memory");
}
__device__ __forceinline__ void cake_sts_pair(uint32_t a, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(a), "f"(x), "f"(y) : "memory");
}
__device__ __forceinline__ void cake_sts_pair(uint32_t a, int x, int y) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(a), "r"(x), "r"(y) : "memory");
}
// One element of global memory if `in`, else zero bits (0 in every element type): a predicated
// ld.global behind no branch. `in` false reads nothing, so p may be past the tensor's end or the
// tensor empty; the value an out-of-bounds element gets is the same 0 as `in ? p[0] : 0`, which
// nvcc compiles to a branch around each load (docs/gpu.md "Branch-free guarded element reads").
// volatile: ordered like the plain load it replaces after griddepcontrol.wait / barriers.
template <typename T>
__device__ __forceinline__ T cake_ldg_or0(const T* p, bool in) {
  T v;
  if constexpr (sizeof(T) == 1) {
    uint16_t r = 0;
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.u8 %0, [%1]; }" : "+h"(r) : "l"(p), "r"(int(in)));
    const uint8_t b = static_cast<uint8_t>(r);
    memcpy(&v, &b, 1);
  } else if constexpr (sizeof(T) == 2) {
    uint16_t r = 0;
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b16 %0, [%1]; }" : "+h"(r) : "l"(p), "r"(int(in)));
    memcpy(&v, &r, 2);
  } else if constexpr (sizeof(T) == 4) {
    uint32_t r = 0;
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b32 %0, [%1]; }" : "+r"(r) : "l"(p), "r"(int(in)));
    memcpy(&v, &r, 4);
  } else {
    static_assert(sizeof(T) == 8, "cake_ldg_or0: 1, 2, 4 or 8-byte elements");
    unsigned long long r = 0;
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b64 %0, [%1]; }" : "+l"(r) : "l"(p), "r"(int(in)));
    memcpy(&v, &r, 8);
  }
  return v;
}
template <typename T>
__device__ __forceinline__ void cake_stg_pair(T* p, T x, T y) {
  if constexpr (sizeof(T) == 2) {
    uint32_t r = 0;
    memcpy(reinterpret_cast<char*>(&r), &x, 2);
    memcpy(reinterpret_cast<char*>(&r) + 2, &y, 2);
    *reinterpret_cast<uint32_t*>(p) = r;
  } else if constexpr (sizeof(T) == 4) {
    uint2 r;
    memcpy(&r.x, &x, 4);
    memcpy(&r.y, &y, 4);
    *reinterpret_cast<uint2*>(p) = r;
  } else {
    p[0] = x;
    p[1] = y;
  }
}

// bf16 / f16 pair of a register fragment as one 32-bit MMA A register
__device__ __forceinline__ uint32_t cake_pack2(__nv_bfloat16 a, __nv_bfloat16 b) {
  __nv_bfloat162 v = __halves2bfloat162(a, b);
  uint32_t r;
  memcpy(&r, &v, 4);
  return r;
}
__device__ __forceinline__ uint32_t cake_pack2(__half a, __half b) {
  __half2 v = __halves2half2(a, b);
  uint32_t r;
  memcpy(&r, &v, 4);
  return r;
}
// The 4 x 4 transpose of 32-bit words across each quad of lanes (4k .. 4k + 3; the whole warp takes part): on
// return word s of lane q is word q of lane s on entry. Two shfl.xor stages: the 2 x 2 blocks across lanes q and
// q ^ 2, then the words inside them across q and q ^ 1.
__device__ __forceinline__ void cake_quad_transpose(uint32_t& w0, uint32_t& w1, uint32_t& w2, uint32_t& w3, int lane) {
  const bool h2 = (lane & 2) != 0, h1 = (lane & 1) != 0;
  uint32_t a = h2 ? w0 : w2, b = h2 ? w1 : w3;
  a = __shfl_xor_sync(0xffffffffu, a, 2);
  b = __shfl_xor_sync(0xffffffffu, b, 2);
  if (h2) { w0 = a; w1 = b; } else { w2 = a; w3 = b; }
  a = h1 ? w0 : w1;
  b = h1 ? w2 : w3;
  a = __shfl_xor_sync(0xffffffffu, a, 1);
  b = __shfl_xor_sync(0xffffffffu, b, 1);
  if (h1) { w0 = a; w2 = b; } else { w1 = a; w3 = b; }
}
// 16 bytes to global memory (p 16-byte aligned)
__device__ __forceinline__ void cake_stg16(void* p, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
  *reinterpret_cast<uint4*>(p) = make_uint4(w0, w1, w2, w3);
}

// ---- reductions ---------------------------------------------------------
__device__ __forceinline__ float cake_shfl_xor(float v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ int cake_shfl_xor(int v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
// argmin / argmax step: keep the smaller index on ties
__device__ __forceinline__ void cake_argmin_step(float& v, int& i, float v2, int i2) {
  if (v2 < v || (v2 == v && i2 < i)) { v = v2; i = i2; }
}
__device__ __forceinline__ void cake_argmax_step(float& v, int& i, float v2, int i2) {
  if (v2 > v || (v2 == v && i2 < i)) { v = v2; i = i2; }
}
)PRELUDE";
}

namespace {
// The box coordinates of a rank-r TMA wrapper: its parameters (", int c0,
// ..."), the PTX operand list ("%first, %first+1, ...") and the inline-asm
// inputs (", "r"(c0), ...").
struct BoxOperands {
  std::string params, coords, ops;
};
BoxOperands boxOperands(int rank, int first_operand) {
  BoxOperands b;
  for (int i = 0; i < rank; ++i) {
    b.params += fmt::format(", int c{}", i);
    b.coords += fmt::format("{}%{}", i ? ", " : "", i + first_operand);
    b.ops += fmt::format(", \"r\"(c{})", i);
  }
  return b;
}
}  // namespace

const char* preludeTmaText() {
  static const std::string text = [] {
    std::string s = R"PRELUDE(
// ---- sm_90a / sm_100a: TMA, setmaxnreg ----------------------------------
__device__ __forceinline__ void cake_prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
__device__ __forceinline__ void cake_tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// programmatic dependent launch: wait for the preceding grid (complete, its
// writes visible); let the next grid in the stream start its prologue
__device__ __forceinline__ void cake_griddep_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void cake_griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cake_tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void cake_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void cake_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
// TMA loads and stores of one box; coordinates innermost first.
)PRELUDE";
    for (int r = 1; r <= 5; ++r) {
      const BoxOperands box = boxOperands(r, 3);
      s += fmt::format(
          "__device__ __forceinline__ void cake_tma_load_{0}d(uint32_t dst, const CUtensorMap* map, uint32_t bar{1}) "
          "{{\n"
          "  asm volatile(\"cp.async.bulk.tensor.{0}d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, "
          "{{{2}}}], [%2];\"\n"
          "               ::\"r\"(dst), \"l\"(reinterpret_cast<uint64_t>(map)), \"r\"(bar){3} : \"memory\");\n"
          "}}\n",
          r, box.params, box.coords, box.ops);
      const BoxOperands store = boxOperands(r, 2);
      s += fmt::format(
          "__device__ __forceinline__ void cake_tma_store_{0}d(const CUtensorMap* map, uint32_t src{1}) {{\n"
          "  asm volatile(\"cp.async.bulk.tensor.{0}d.global.shared::cta.bulk_group [%0, {{{2}}}], [%1];\"\n"
          "               ::\"l\"(reinterpret_cast<uint64_t>(map)), \"r\"(src){3} : \"memory\");\n"
          "}}\n",
          r, store.params, store.coords, store.ops);
    }
    return s;
  }();
  return text.c_str();
}

const char* preludeClusterText() {
  static const std::string text = [] {
    std::string s = R"PRELUDE(
// ---- thread-block clusters (sm_90a and later) ----------------------------
// One arrival of `count` on the mbarrier at the same offset in cluster CTA
// `cta` (mapa), with the PTX default semantics (release at CTA scope), as
// CUTLASS's ClusterBarrier::arrive(cta_id, pred) does. What a remote arrive
// orders in the IR is this thread's use of its OWN CTA's shared memory
// before the peer's multicast TMA overwrites it (reads finished by
// lm.mma_wait / program order; the IR has no stores to a peer's shared
// memory, so nothing of this thread's must become visible to the peer). An
// arrive.release.cluster put a cluster-scope fence (ERRBAR + membar stall)
// before every release: Nsight Compute found the consumers of the 2x1
// multicast GEMMs stalled there (docs/gpu.md).
__device__ __forceinline__ void cake_mbar_arrive_cluster(uint32_t bar, uint32_t cta, uint32_t count) {
  asm volatile(
      "{\n"
      ".reg .b32 rb;\n"
      "mapa.shared::cluster.u32 rb, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [rb], %2;\n"
      "}\n" ::"r"(bar),
      "r"(cta), "r"(count)
      : "memory");
}
// barrier.cluster: every non-exited thread of the cluster arrives (release)
// and waits (acquire). Not .aligned: an elected-thread role runs it on one
// thread per instance while the others of its warps have exited.
__device__ __forceinline__ void cake_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
// TMA loads of one box to the same offset of every CTA of `mask`, each
// completing the bytes on its own mbarrier at the offset of `bar`.
)PRELUDE";
    for (int r = 1; r <= 5; ++r) {
      const BoxOperands box = boxOperands(r, 4);
      s += fmt::format(
          "__device__ __forceinline__ void cake_tma_load_{0}d_mc(uint32_t dst, const CUtensorMap* map, uint32_t bar, "
          "uint16_t mask{1}) {{\n"
          "  asm volatile(\"cp.async.bulk.tensor.{0}d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::"
          "cluster [%0], [%1, {{{2}}}], [%2], %3;\"\n"
          "               ::\"r\"(dst), \"l\"(reinterpret_cast<uint64_t>(map)), \"r\"(bar), \"h\"(mask){3} : "
          "\"memory\");\n"
          "}}\n",
          r, box.params, box.coords, box.ops);
    }
    return s;
  }();
  return text.c_str();
}

const char* preludeWgmmaText() {
  return R"PRELUDE(
// ---- sm_90a: wgmma -------------------------------------------------------
__device__ __forceinline__ void cake_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void cake_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cake_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Shared-memory matrix descriptor of a K-major operand: start address >> 4
// in bits [0,14), leading byte offset >> 4 in [16,30) (unused for swizzled
// K-major: 1), stride byte offset >> 4 in [32,46) (8 rows), swizzle mode in
// [62,64) (1: 128B, 2: 64B, 3: 32B).
__device__ __forceinline__ uint64_t cake_wgmma_desc(uint32_t saddr, uint32_t sbo_bytes, uint32_t mode) {
  return static_cast<uint64_t>((saddr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(1) << 16) |
         (static_cast<uint64_t>(sbo_bytes >> 4) << 32) | (static_cast<uint64_t>(mode) << 62);
}
// The descriptor of saddr + off_bytes from saddr's: only the start-address
// field moves, and it cannot carry out of its 14 bits (both addresses lie in
// the same shared-memory slot, below 256 KiB). One 32-bit add per k-step
// instead of rebuilding the descriptor (the mainloop's issue slots: a single
// warpgroup feeding the tensor pipe, as in ping-pong, has one wgmma group's
// time to issue the next).
__device__ __forceinline__ uint64_t cake_wgmma_desc_add(uint64_t desc, uint32_t off_bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | static_cast<uint32_t>(static_cast<uint32_t>(desc) + (off_bytes >> 4));
}
)PRELUDE";
}

const char* preludeSm80Text() {
  return R"PRELUDE(
// ---- cp.async, ldmatrix, mma.sync (sm_80 and later) ----------------------
// Copies `bytes` (4, 8 or 16) from global to shared; reads src_bytes of them
// (0..bytes) and zero-fills the rest.
template <int BYTES>
__device__ __forceinline__ void cake_cp_async(uint32_t dst, const void* src, int src_bytes) {
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(BYTES), "r"(src_bytes)
                 : "memory");
}
__device__ __forceinline__ void cake_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cake_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void cake_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
// D (row g, cols 2c, 2c+1: d0 d1; row g+8: d2 d3) += A[16x16] . B[16x8]
__device__ __forceinline__ void cake_mma_16816_bf16(float& d0, float& d1, float& d2, float& d3, const uint32_t (&a)[4],
                                                    uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void cake_mma_16816_f16(float& d0, float& d1, float& d2, float& d3, const uint32_t (&a)[4],
                                                   uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
)PRELUDE";
}

const char* preludeTcgen05Text() {
  static const std::string text = [] {
    std::string s = R"PRELUDE(
// ---- sm_100a: tcgen05 (TMEM allocation, MMA, commit, TMEM <-> registers) ----
__device__ __forceinline__ void cake_tmem_alloc(uint32_t dst_smem, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols)
               : "memory");
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void cake_tmem_dealloc(uint32_t taddr, uint32_t ncols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}
__device__ __forceinline__ void cake_tc_fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ __forceinline__ void cake_tc_fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }
// Shared-memory descriptor (sm_100): start >> 4 [0,14), LBO >> 4 [16,30)
// (1: unused for swizzled K-major), SBO >> 4 [32,46), version 1 [46,48),
// layout [61,64) (2: 128B swizzle, 4: 64B, 6: 32B).
__device__ __forceinline__ uint64_t cake_umma_desc(uint32_t saddr, uint32_t sbo_bytes, uint32_t layout) {
  return static_cast<uint64_t>((saddr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(1) << 16) |
         (static_cast<uint64_t>(sbo_bytes >> 4) << 32) | (static_cast<uint64_t>(1) << 46) |
         (static_cast<uint64_t>(layout) << 61);
}
// D[tmem] (+)= A[smem] . B[smem]^T, one instruction (K = 32 bytes of A/B rows)
#define CAKE_UMMA(KIND)                                                                                          \
  __device__ __forceinline__ void cake_umma_##KIND(uint32_t d_tmem, uint64_t da, uint64_t db, uint32_t idesc,   \
                                                   int accumulate) {                                            \
    asm volatile(                                                                                                \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\ntcgen05.mma.cta_group::1.kind::" #KIND " [%0], %1, %2, %3, p;\n}\n" \
        ::"r"(d_tmem), "l"(da), "l"(db), "r"(idesc), "r"(accumulate)                                             \
        : "memory");                                                                                             \
  }
CAKE_UMMA(f16)
CAKE_UMMA(tf32)
CAKE_UMMA(f8f6f4)
#undef CAKE_UMMA
// arrives (once) on the mbarrier when every tcgen05.mma issued so far by this thread has completed
__device__ __forceinline__ void cake_umma_commit(uint32_t bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void cake_tmem_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void cake_tmem_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }
// 32x32b: each thread of the warp reads (writes) N consecutive 32-bit
// columns of its own TMEM lane (the warp's lane quarter).
)PRELUDE";
    for (int n : {1, 2, 4, 8, 16, 32}) {
      std::string regs, outs, ins;
      for (int i = 0; i < n; ++i) {
        regs += fmt::format("{}%{}", i ? ", " : "", i);
        outs += fmt::format("{}\"=r\"(v[{}])", i ? ", " : "", i);
        ins += fmt::format(", \"r\"(v[{}])", i);
      }
      s += fmt::format(
          "__device__ __forceinline__ void cake_tmem_ld_x{0}(uint32_t taddr, uint32_t (&v)[{0}]) {{\n"
          "  asm volatile(\"tcgen05.ld.sync.aligned.32x32b.x{0}.b32 {{{1}}}, [%{0}];\" : {2} : \"r\"(taddr));\n"
          "}}\n",
          n, regs, outs);
      std::string sregs;
      for (int i = 0; i < n; ++i) sregs += fmt::format("{}%{}", i ? ", " : "", i + 1);
      s += fmt::format(
          "__device__ __forceinline__ void cake_tmem_st_x{0}(uint32_t taddr, const uint32_t (&v)[{0}]) {{\n"
          "  asm volatile(\"tcgen05.st.sync.aligned.32x32b.x{0}.b32 [%0], {{{1}}};\" :: \"r\"(taddr){2} : "
          "\"memory\");\n"
          "}}\n",
          n, sregs, ins);
    }
    return s;
  }();
  return text.c_str();
}

const char* preludeHostText() {
  return R"PRELUDE(
// ---- host: tensor maps through the driver entry point (no -lcuda) -------
static PFN_cuTensorMapEncodeTiled_v12000 cake_get_encode() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (!fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }
  return fn;
}
// A row-major tensor of `rank` dimensions (dims and strides in elements,
// outermost first, innermost stride 1), box `box` (outermost first).
static int cake_encode(CUtensorMap* map, CUtensorMapDataType type, int elem_bytes, const CakeTensorArg& t,
                       const int* box, CUtensorMapSwizzle swizzle) {
  auto encode = cake_get_encode();
  if (!encode) return cudaErrorNotSupported;
  const int rank = t.rank;
  if (rank < 1 || rank > 5 || t.strides[rank - 1] != 1) return cudaErrorInvalidValue;
  cuuint64_t dims[5], strides[5];
  cuuint32_t boxd[5], estr[5];
  for (int i = 0; i < rank; ++i) {
    dims[i] = static_cast<cuuint64_t>(t.dims[rank - 1 - i]);
    boxd[i] = static_cast<cuuint32_t>(box[rank - 1 - i]);
    estr[i] = 1;
  }
  for (int i = 0; i + 1 < rank; ++i) strides[i] = static_cast<cuuint64_t>(t.strides[rank - 2 - i]) * elem_bytes;
  CUresult r = encode(map, type, rank, t.data, dims, strides, boxd, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? 0 : cudaErrorInvalidValue;
}
)PRELUDE";
}

// The accumulator fragment of one m64 block is passed as its two row halves
// d0 (rows g) and d1 (rows g + 8), each [N/4]: wgmma register k holds row
// half (k / 2) % 2, column 8 * (k / 4) + 2 * (lane % 4) + k % 2, i.e.
// d{(k/2)%2}[2 * (k / 4) + k % 2].
//
// Transposed (trans, docs/ir-extensions.md "Transposed wgmma"): the fragment
// is the transpose of the wgmma's D, declared [n/4][NC] (its rows are D's
// columns, its columns D's rows: NC = 2 x the m64 blocks per warpgroup), and
// the helper takes the whole fragment with the m64 block I as a template
// argument: register k is d[2 * (k / 4) + k % 2][2 * I + (k / 2) % 2].
std::string wgmmaHelper(int n, const std::string& ab_type, bool rs, bool trans) {
  const int nreg = n / 2;
  const bool fp8 = ab_type == "e4m3" || ab_type == "e5m2";
  const bool tf32 = ab_type == "tf32";
  const int kk = fp8 ? 32 : tf32 ? 8 : 16;
  const bool transposes = !fp8 && !tf32;  // imm-trans-a/b exist for f16/bf16 only
  std::string s;
  const std::string name = fmt::format("cake_wgmma{}{}_m64n{}k{}_{}", rs ? "_rs" : "", trans ? "_t" : "", n, kk, ab_type);
  s += fmt::format("// wgmma.mma_async m64n{0}k{1}: f32 accumulators ({2} per thread) += {3} x {3}, A from {4}{5}\n", n,
                   kk, nreg, ab_type, rs ? "registers" : "shared memory",
                   trans ? ", into the transposed fragment d (m64 block I)" : "");
  if (trans)
    s += fmt::format("template <int I, int NC>\n__device__ __forceinline__ void {}(float (&d)[{}][NC], ", name, n / 4);
  else
    s += fmt::format("__device__ __forceinline__ void {}(float (&d0)[{}], float (&d1)[{}], ", name, n / 4, n / 4);
  if (rs)
    s += "uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, ";
  else
    s += "uint64_t desc_a, ";
  s += "uint64_t desc_b, int scale_d) {\n";
  const int na = rs ? 4 : 1;
  s += "  asm volatile(\n";
  s += "      \"{\\n.reg .pred p;\\n\"\n";
  s += fmt::format("      \"setp.ne.b32 p, %{}, 0;\\n\"\n", nreg + na + 1);
  s += fmt::format("      \"wgmma.mma_async.sync.aligned.m64n{}k{}.f32.{}.{} \"\n", n, kk, ab_type, ab_type);
  for (int c = 0; c < nreg; c += 16) {
    s += "      \"";
    if (c == 0) s += "{";
    for (int i = c; i < std::min(c + 16, nreg); ++i) {
      s += fmt::format("%{}", i);
      if (i + 1 < nreg) s += ", ";
    }
    if (c + 16 >= nreg) s += "}, ";
    s += "\"\n";
  }
  if (rs)
    s += fmt::format("      \"{{%{}, %{}, %{}, %{}}}, %{}, p, 1, 1, 0;\\n}}\\n\"\n", nreg, nreg + 1, nreg + 2, nreg + 3,
                     nreg + 4);
  else
    s += fmt::format("      \"%{}, %{}, p, 1, 1{};\\n}}\\n\"\n", nreg, nreg + 1, transposes ? ", 0, 0" : "");
  s += "      :";
  for (int i = 0; i < nreg; ++i) {
    if (i % 8 == 0) s += "\n        ";
    if (trans)
      s += fmt::format("\"+f\"(d[{}][2 * I + {}])", 2 * (i / 4) + i % 2, (i / 2) % 2);
    else
      s += fmt::format("\"+f\"(d{}[{}])", (i / 2) % 2, 2 * (i / 4) + i % 2);
    if (i + 1 < nreg) s += ", ";
  }
  if (rs)
    s += "\n      : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(desc_b), \"r\"(scale_d));\n}\n";
  else
    s += "\n      : \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d));\n}\n";
  return s;
}

}  // namespace cake::lowering
