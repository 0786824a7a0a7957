// Fixed text of the generated .cu files: includes, the kernel ABI, and the
// inline-PTX helpers every lowered kernel uses. Generated per-shape helpers
// (wgmma with its N accumulator registers) are made in wgmmaHelper().
#include "lowering/prelude.h"

#include <fmt/format.h>

namespace cake::lowering {

const char* preludeText() {
  return R"PRELUDE(#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <stdint.h>

// ---- cake kernel ABI (runner/harness/cake_abi.h) -------------------------
#if __has_include("cake_abi.h")
#include "cake_abi.h"
#else
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
#endif

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
__host__ __device__ __forceinline__ int cake_min(int a, int b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ int cake_max(int a, int b) { return a > b ? a : b; }

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
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void cake_fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void cake_mbar_arrive(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void cake_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cake_mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@!P1 bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// bar.sync / bar.arrive on a named barrier (id 0 is __syncthreads)
__device__ __forceinline__ void cake_bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void cake_bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void cake_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
)PRELUDE";
}

const char* preludeSm90Text() {
  return R"PRELUDE(
// ---- sm_90a: TMA, setmaxnreg, wgmma -------------------------------------
__device__ __forceinline__ void cake_prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
__device__ __forceinline__ void cake_tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
__device__ __forceinline__ void cake_tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void cake_tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
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
)PRELUDE";
}

const char* preludeSm80Text() {
  return R"PRELUDE(
// ---- sm_80: cp.async, ldmatrix, mma.sync --------------------------------
__device__ __forceinline__ void cake_cp_async_16(uint32_t dst, const void* src, bool pred) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(pred ? 16 : 0) : "memory");
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
__device__ __forceinline__ void cake_mma_16816_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void cake_mma_16816_f16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
)PRELUDE";
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
// A 2-D row-major tensor [rows, cols] (cols contiguous, row stride ld
// elements), box [box_rows, box_cols].
static int cake_encode_2d(CUtensorMap* map, CUtensorMapDataType type, int elem_bytes, const void* ptr, int rows,
                          int cols, int ld, int box_rows, int box_cols, CUtensorMapSwizzle swizzle) {
  auto encode = cake_get_encode();
  if (!encode) return cudaErrorNotSupported;
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * elem_bytes};
  cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  cuuint32_t estr[2] = {1, 1};
  CUresult r = encode(map, type, 2, const_cast<void*>(ptr), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? 0 : cudaErrorInvalidValue;
}
)PRELUDE";
}

std::string wgmmaHelper(int n, const std::string& ab_type) {
  const int nreg = n / 2;
  std::string s;
  s += fmt::format(
      "// wgmma.mma_async m64n{0}k16: f32 accumulators ({1} per thread) += {2} x {2}, A and B from shared memory\n",
      n, nreg, ab_type);
  s += fmt::format(
      "__device__ __forceinline__ void cake_wgmma_m64n{0}k16_{1}(float (&d)[{2}], uint64_t desc_a, uint64_t desc_b, "
      "int scale_d) {{\n",
      n, ab_type, nreg);
  s += "  asm volatile(\n";
  s += "      \"{\\n.reg .pred p;\\n\"\n";
  s += fmt::format("      \"setp.ne.b32 p, %{}, 0;\\n\"\n", nreg + 2);
  s += fmt::format("      \"wgmma.mma_async.sync.aligned.m64n{}k16.f32.{}.{} \"\n", n, ab_type, ab_type);
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
  s += fmt::format("      \"%{}, %{}, p, 1, 1, 0, 0;\\n}}\\n\"\n", nreg, nreg + 1);
  s += "      :";
  for (int i = 0; i < nreg; ++i) {
    if (i % 8 == 0) s += "\n        ";
    s += fmt::format("\"+f\"(d[{}])", i);
    if (i + 1 < nreg) s += ", ";
  }
  s += "\n      : \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d));\n}\n";
  return s;
}

}  // namespace cake::lowering
