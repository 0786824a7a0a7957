// Hand-written template of what lowering/ emits for an sm_90a warp-specialized
// bf16 GEMM schedule: C[M,N] = A[M,K] * B[N,K]^T (A, B K-major, fp32 accumulate,
// bf16 out). This file is the reference the lowering is tested against.
//
// Roles (one CTA = 3 warpgroups, 384 threads):
//   warpgroup 0 : `load`  (producer) -- warp 0, one elected thread issues TMA;
//                 setmaxnreg.dec to 40.
//   warpgroups 1,2 : `mma` (consumer, group=4 -> 2 instances) -- each instance
//                 multiplies 64 rows of the 128-row block tile with
//                 wgmma.m64n{BN}k16; setmaxnreg.inc to 232.
// Buffers: smem_a ring [STAGES][BM x BK] bf16, smem_b ring [STAGES][BN x BK]
//          bf16, both 128B-swizzled by TMA.
// Barriers: full[STAGES]  (init_count 1: the producer's arrive.expect_tx)
//           empty[STAGES] (init_count 2 consumer instances; lowered as one
//                          arrive per consumer warp -> count 2*4 = 8)
// Iteration `it` (k-blocks counted across the tiles of a persistent CTA):
//   slot = it % STAGES, phase = it / STAGES, parity = phase & 1.
//   Producer waits empty[slot] at iteration it - STAGES (parity ((it/S)&1)^1,
//   which passes at once on the first lap).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <stdint.h>

#include "cake_abi.h"

#ifndef CAKE_BN
#define CAKE_BN 256
#endif
#ifndef CAKE_STAGES
#define CAKE_STAGES 4
#endif
#ifndef CAKE_GROUP_M
#define CAKE_GROUP_M 16
#endif
#ifndef CAKE_PERSISTENT
#define CAKE_PERSISTENT 1
#endif

namespace cake_sm90_ws_gemm {

constexpr int BM = 128, BN = CAKE_BN, BK = 64, STAGES = CAKE_STAGES;
constexpr int GROUP_M = CAKE_GROUP_M;
constexpr int CONSUMER_WGS = 2;
constexpr int THREADS = 128 * (1 + CONSUMER_WGS);
constexpr int A_SLOT_BYTES = BM * BK * 2;
constexpr int B_SLOT_BYTES = BN * BK * 2;
constexpr int STAGE_TX_BYTES = A_SLOT_BYTES + B_SLOT_BYTES;  // derived expect_tx
constexpr int SMEM_A_OFF = 0;
constexpr int SMEM_B_OFF = SMEM_A_OFF + STAGES * A_SLOT_BYTES;
constexpr int SMEM_FULL_OFF = SMEM_B_OFF + STAGES * B_SLOT_BYTES;
constexpr int SMEM_EMPTY_OFF = SMEM_FULL_OFF + STAGES * 8;
constexpr int SMEM_USED = SMEM_EMPTY_OFF + STAGES * 8;
constexpr int SMEM_BYTES = SMEM_USED + 1024;  // slack to align the base to 1024 B
constexpr int ACC_REGS = BN / 2;              // fp32 accumulators per thread (m64nBN)
constexpr int EMPTY_ARRIVALS = CONSUMER_WGS * 4;  // one per consumer warp

// ---------------------------------------------------------------- PTX helpers
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
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
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Shared-memory matrix descriptor, K-major operand, 128B swizzle:
// start>>4 in [0,14), LBO>>4 in [16,30) (unused for swizzled K-major: 1),
// SBO>>4 in [32,46) = 1024 B between 8-row groups, swizzle mode 1 (128B) in [62,64).
__device__ __forceinline__ uint64_t desc_kmajor_sw128(uint32_t saddr) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((saddr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>(1) << 16;
  d |= static_cast<uint64_t>(1024 >> 4) << 32;
  d |= static_cast<uint64_t>(1) << 62;
  return d;
}

// wgmma.mma_async m64n256k16, f32 += bf16 * bf16, A and B from shared memory (K-major).
__device__ __forceinline__ void wgmma_m64n256k16_ss(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// wgmma.mma_async m64n128k16, f32 += bf16 * bf16, A and B from shared memory (K-major).
__device__ __forceinline__ void wgmma_m64n128k16_ss(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

template <int N>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d);
template <>
__device__ __forceinline__ void wgmma_ss<256>(float (&d)[128], uint64_t da, uint64_t db, int s) {
  wgmma_m64n256k16_ss(d, da, db, s);
}
template <>
__device__ __forceinline__ void wgmma_ss<128>(float (&d)[64], uint64_t da, uint64_t db, int s) {
  wgmma_m64n128k16_ss(d, da, db, s);
}

// Tile order: groups of GROUP_M block rows, column-major inside a group (L2 reuse).
__device__ __forceinline__ void tile_coords(int tile, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int per_group = GROUP_M * tiles_n;
  const int group = tile / per_group;
  const int first_m = group * GROUP_M;
  const int group_m = min(tiles_m - first_m, GROUP_M);
  const int in_group = tile - group * per_group;
  tm = first_m + in_group % group_m;
  tn = in_group / group_m;
}

__global__ void __launch_bounds__(THREADS, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                __nv_bfloat16* __restrict__ C, int M, int N, int K, int ldc) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem_base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t smem_a = smem_base + SMEM_A_OFF;
  const uint32_t smem_b = smem_base + SMEM_B_OFF;
  const uint32_t full = smem_base + SMEM_FULL_OFF;    // full[s]  at full  + 8*s
  const uint32_t empty = smem_base + SMEM_EMPTY_OFF;  // empty[s] at empty + 8*s

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int wg = warp / 4;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, EMPTY_ARRIVALS);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int tiles = tiles_m * tiles_n;
  const int kblocks = (K + BK - 1) / BK;
#if CAKE_PERSISTENT
  const int tile_step = gridDim.x;
#else
  const int tile_step = tiles;
#endif

  if (wg == 0) {
    // ------------------------------------------------------------ role `load`
    setmaxnreg_dec<40>();
    if (warp == 0 && lane == 0) {
      prefetch_tensormap(&tmap_a);
      prefetch_tensormap(&tmap_b);
      uint32_t it = 0;
      for (int tile = blockIdx.x; tile < tiles; tile += tile_step) {
        int tm, tn;
        tile_coords(tile, tiles_m, tiles_n, tm, tn);
        for (int kb = 0; kb < kblocks; ++kb, ++it) {
          const uint32_t slot = it % STAGES;
          const uint32_t phase = it / STAGES;
          mbar_wait(empty + 8 * slot, (phase & 1) ^ 1);  // wait(empty, iter=it-STAGES)
          mbar_arrive_expect_tx(full + 8 * slot, STAGE_TX_BYTES);
          tma_load_2d(smem_a + slot * A_SLOT_BYTES, &tmap_a, full + 8 * slot, kb * BK, tm * BM);
          tma_load_2d(smem_b + slot * B_SLOT_BYTES, &tmap_b, full + 8 * slot, kb * BK, tn * BN);
        }
      }
    }
  } else {
    // ------------------------------------------------------------- role `mma`
    setmaxnreg_inc<232>();
    const int inst = wg - 1;  // lm.instance(): which 64-row half of the tile
    const int wwarp = warp % 4;
    float acc[ACC_REGS];
    uint32_t it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += tile_step) {
      int tm, tn;
      tile_coords(tile, tiles_m, tiles_n, tm, tn);
      uint32_t prev_slot = 0;
      for (int kb = 0; kb < kblocks; ++kb, ++it) {
        const uint32_t slot = it % STAGES;
        const uint32_t phase = it / STAGES;
        mbar_wait(full + 8 * slot, phase & 1);  // wait(full, iter=it)
        const uint32_t a_rows = smem_a + slot * A_SLOT_BYTES + inst * 64 * BK * 2;
        const uint32_t b_rows = smem_b + slot * B_SLOT_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 16; ++k) {
          // +32 B per k16 step inside the 128 B swizzled row
          wgmma_ss<BN>(acc, desc_kmajor_sw128(a_rows + 32 * k), desc_kmajor_sw128(b_rows + 32 * k),
                       (kb > 0 || k > 0) ? 1 : 0);
        }
        wgmma_commit();
        if (kb > 0) {
          wgmma_wait<1>();  // the group that read prev_slot has retired
          if (lane == 0) mbar_arrive(empty + 8 * prev_slot);
        }
        prev_slot = slot;
      }
      wgmma_wait<0>();
      if (kblocks > 0 && lane == 0) mbar_arrive(empty + 8 * prev_slot);

      // epilogue: fp32 -> bf16, direct stores (row-major C)
      const int row0 = tm * BM + inst * 64 + wwarp * 16 + lane / 4;
      const int colq = tn * BN + 2 * (lane % 4);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = colq + 8 * j;
        if (col < N) {
          if (row0 < M) {
            __nv_bfloat162 v = __floats2bfloat162_rn(acc[4 * j + 0], acc[4 * j + 1]);
            *reinterpret_cast<__nv_bfloat162*>(C + static_cast<size_t>(row0) * ldc + col) = v;
          }
          if (row0 + 8 < M) {
            __nv_bfloat162 v = __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
            *reinterpret_cast<__nv_bfloat162*>(C + static_cast<size_t>(row0 + 8) * ldc + col) = v;
          }
        }
      }
    }
  }
}

// ------------------------------------------------------------------- host side
static PFN_cuTensorMapEncodeTiled_v12000 get_encode() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (!fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }
  return fn;
}

// 2-D K-major bf16 tensor [rows, cols] (cols contiguous), box [box_rows, 64], 128B swizzle.
static int encode_kmajor(CUtensorMap* map, const void* ptr, int rows, int cols, int ld, int box_rows) {
  auto encode = get_encode();
  if (!encode) return cudaErrorNotSupported;
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};
  cuuint32_t box[2] = {static_cast<cuuint32_t>(BK), static_cast<cuuint32_t>(box_rows)};
  cuuint32_t estr[2] = {1, 1};
  CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(ptr), dims, strides, box,
                      estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? 0 : cudaErrorInvalidValue;
}

}  // namespace cake_sm90_ws_gemm

extern "C" int cake_abi_version(void) { return CAKE_ABI_VERSION; }

extern "C" void cake_kernel_info(CakeKernelInfo* info) {
  using namespace cake_sm90_ws_gemm;
  info->name = "sm90_ws_gemm";
  info->target = "sm_90a";
  info->block_m = BM;
  info->block_n = BN;
  info->block_k = BK;
  info->stages = STAGES;
  info->m_multiple = 1;
  info->n_multiple = 8;  // 16-byte TMA row strides, bf16x2 stores
  info->k_multiple = 8;
}

extern "C" int cake_gemm_launch(const CakeGemmArgs* a, void* stream) {
  using namespace cake_sm90_ws_gemm;
  CUtensorMap ma, mb;
  int e = encode_kmajor(&ma, a->A, a->M, a->K, a->lda, BM);
  if (e) return e;
  e = encode_kmajor(&mb, a->B, a->N, a->K, a->ldb, BN);
  if (e) return e;
  static bool attr = false;
  if (!attr) {
    cudaError_t r = cudaFuncSetAttribute(gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    if (r != cudaSuccess) return r;
    attr = true;
  }
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int tiles = ((a->M + BM - 1) / BM) * ((a->N + BN - 1) / BN);
  const int grid = CAKE_PERSISTENT ? (tiles < sms ? tiles : sms) : tiles;
  gemm_kernel<<<grid, THREADS, SMEM_BYTES, static_cast<cudaStream_t>(stream)>>>(
      ma, mb, static_cast<__nv_bfloat16*>(a->C), a->M, a->N, a->K, a->ldc);
  return cudaGetLastError();
}
