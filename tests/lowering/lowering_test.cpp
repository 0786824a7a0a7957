// lowering/: ir::Schedule -> CUDA C++. No GPU or CUDA toolkit needed (the
// nvcc and GPU tests are in tests/runner).
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <vector>
#include <cstring>
#include <string>

#include "tests/common/text_edit.h"
#include "ir/frontend.h"
#include "ir/target.h"
#include "ir/tmem.h"
#include "lowering/lower.h"
#include "tests/common/corpus_files.h"

using namespace cake;

namespace {

using test::sourceDir;

ir::Module compileText(const std::string& name, const std::string& text) {
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile(name, text), {}, sink);
  std::string msgs;
  for (const auto& f : sink.findings()) msgs += ir::renderText(f) + "\n";
  EXPECT_TRUE(m.has_value()) << msgs;
  EXPECT_FALSE(sink.hasErrors()) << msgs;
  return m ? std::move(*m) : ir::Module{};
}

ir::Module compileFile(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile(sourceDir() + "/" + rel, err);
  EXPECT_TRUE(file) << err;
  if (!file) return {};
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(file, {}, sink);
  std::string msgs;
  for (const auto& f : sink.findings()) msgs += ir::renderText(f) + "\n";
  EXPECT_TRUE(m.has_value()) << msgs;
  return m ? std::move(*m) : ir::Module{};
}

lowering::LowerResult lowerFile(const std::string& rel, lowering::LowerOptions o = {}) {
  auto m = compileFile(rel);
  if (m.schedules.empty()) return {};
  return lowering::lowerToCuda(m.schedules[0], o);
}

std::string findingsText(const lowering::LowerResult& r) {
  std::string s;
  for (const auto& f : r.findings) s += ir::renderText(f) + "\n";
  return s;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

const char* kSm90Gemm = "corpus/gemm/sm90_ws_4stage.cake";
const char* kSm90Persistent = "corpus/gemm/sm90_persistent_ws.cake";
const char* kSm80Gemm = "corpus/gemm/sm80_cp_async_multistage.cake";

}  // namespace

TEST(Lowering, Sm90WarpSpecializedGemm) {
  auto r = lowerFile(kSm90Gemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.target, ir::Target::SM90a);
  EXPECT_EQ(r.problem, lowering::Problem::Gemm);
  EXPECT_EQ(r.kernel_name, "cake_gemm_sm90_ws_4stage_kernel");
  EXPECT_EQ(r.launch.threads, 384);
  EXPECT_FALSE(r.launch.persistent);
  EXPECT_EQ(r.launch.grid, "(cdiv(C.shape[0], 128), cdiv(C.shape[1], 128), 1)");
  // The launch requests what the resource report counts: the layout of
  // 163,904 B (report.resources' smem.total) plus the alignment slack.
  EXPECT_EQ(r.launch.smem_bytes, ir::requestedSmemBytes(163904));
  // the generic signature: one tensor map per (tensor, view), scalars
  EXPECT_TRUE(contains(s, "const __grid_constant__ CUtensorMap cake_tmap_A_smem_a,"));
  EXPECT_TRUE(contains(s, "const int K) {"));
  // names from the schedule
  EXPECT_TRUE(contains(s, "const uint32_t smem_a = cake_pool_pool + 0;"));
  EXPECT_TRUE(contains(s, "const uint32_t smem_b = cake_pool_pool + 65536;"));
  EXPECT_TRUE(contains(s, "role 'producer'"));
  EXPECT_TRUE(contains(s, "role 'consumers'"));
  // warp predicates
  EXPECT_TRUE(contains(s, "if (cake_warp >= 0 && cake_warp < 4) {"));
  EXPECT_TRUE(contains(s, "} else if (cake_warp >= 4 && cake_warp < 12) {"));
  // setmaxnreg from regs=, relative to the 65536/384 = 168 cap at launch
  EXPECT_TRUE(contains(s, "cake_setmaxnreg_dec<40>();"));
  EXPECT_TRUE(contains(s, "cake_setmaxnreg_inc<232>();"));
  // barriers: full expects 1 arrival; empty 2 instances x 4 warps
  EXPECT_TRUE(contains(s, "cake_mbar_init(full + 8 * s, 1);"));
  EXPECT_TRUE(contains(s, "cake_mbar_init(empty + 8 * s, 8);"));
  // derived expect_tx: one per iteration, A box + B box = 2 x 128x64 bf16
  EXPECT_EQ(count(s, "cake_mbar_arrive_expect_tx("), 1u + 1u /* prelude definition */);
  EXPECT_TRUE(contains(s, "cake_mbar_arrive_expect_tx((full + 8 * (cake_slot<4>(k))), 32768);"));
  // wait(empty, iter=k-4): guarded negative iteration, slot and parity from iter
  EXPECT_TRUE(contains(s, "if ((k - 4) >= 0) {"));
  EXPECT_TRUE(contains(s, "cake_mbar_wait(empty + 8 * (cake_slot<4>((k - 4))), cake_parity<4>((k - 4)));"));
  EXPECT_TRUE(contains(s, "cake_mbar_wait(full + 8 * (cake_slot<4>(k)), cake_parity<4>(k));"));
  // TMA: coordinates innermost first, slot from iter=
  EXPECT_TRUE(contains(s, "cake_tma_load_2d((smem_a + 16384 * (cake_slot<4>(k))), &cake_tmap_A_smem_a, (full + 8 * (cake_slot<4>(k))), "
                          "(k * 64), (cake_bx * 128));"));
  // wgmma: m64n128k16, 4 k-steps of 32 B, SBO 1024, 128B swizzle (mode 1); A rows of this instance
  EXPECT_TRUE(contains(s, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
  EXPECT_TRUE(contains(s, "+ ((64 * cake_instance)) * 128;"));
  // descriptors built once per slot, moved by 32 B per k-step
  EXPECT_TRUE(contains(s, "const uint64_t cake_da0 = cake_wgmma_desc(cake_a + 0 * 128, 1024, 1);"));
  EXPECT_TRUE(contains(s, "const uint64_t cake_db = cake_wgmma_desc(cake_b, 1024, 1);"));
  EXPECT_TRUE(contains(s, "cake_wgmma_desc_add(cake_da0, cake_k * 32),"));
  EXPECT_TRUE(contains(s, "cake_wgmma_desc_add(cake_db, cake_k * 32), cake_k == 0 ? cake_scale_d : 1);"));
  EXPECT_TRUE(contains(s, "cake_wgmma_wait<0>();"));
  EXPECT_TRUE(contains(s, "float acc[2][32];"));
  // epilogue: paired st.shared, then the instance's sync before the elected TMA store
  EXPECT_TRUE(contains(s, "cake_sts_pair("));
  EXPECT_TRUE(contains(s, "cake_bar_sync(cake_inst_bar, 128);"));
  {
    const size_t k = s.find("__global__ void");
    const size_t fence = s.find("cake_fence_proxy_async();", k), sync = s.find("cake_bar_sync(cake_inst_bar, 128);", k),
                 store = s.find("cake_tma_store_2d(&cake_tmap_C_smem_c,", k);
    EXPECT_LT(fence, sync);  // each writer fences its own writes, then the instance syncs
    EXPECT_LT(sync, store);
  }
  EXPECT_TRUE(contains(s, "cake_tma_store_wait<0>();"));
  // host: tensor maps from the views' boxes and swizzles; assumptions; the two launchers
  EXPECT_TRUE(contains(s, "const int cake_box_A_smem_a[2] = {128, 64};"));
  EXPECT_TRUE(contains(s, "cake_encode(&cake_tmap_A_smem_a, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, cake_t[0], "
                          "cake_box_A_smem_a, CU_TENSOR_MAP_SWIZZLE_128B)"));
  // the unswizzled staging view is stored as two 128B-swizzled 64-column blocks: two boxes per TMA store
  EXPECT_TRUE(contains(s, "const int cake_box_C_smem_c[2] = {64, 64};"));
  EXPECT_TRUE(contains(s, "cake_box_C_smem_c, CU_TENSOR_MAP_SWIZZLE_128B)"));
  EXPECT_TRUE(contains(s, "cake_tma_store_2d(&cake_tmap_C_smem_c, (smem_c + 16384 * (cake_slot<2>(cake_instance))) + 8192, "
                          "(cake_by * 128) + 64, ((cake_bx * 128) + (64 * cake_instance)));"));
  // the accumulator's rows: this thread's row and its swizzle once per copy (kept there by cake_here), each
  // slot's row (a multiple of 8: the same swizzle) a constant offset, the column block and chunk XOR per pair
  EXPECT_TRUE(contains(s, "const uint32_t cake_d_rb = cake_here(static_cast<uint32_t>(cake_d_r0 + 16 * cake_wwarp + cake_lane / 4) * 128u);"));
  EXPECT_TRUE(contains(s, "const uint32_t cake_d_sw = ((cake_d_rb >> 3) & 112u);"));
  EXPECT_TRUE(contains(s, "cake_sts_pair(cake_d_v + (cake_d_rb + static_cast<uint32_t>(64 * (cake_i / 2) + 8 * (cake_i % 2)) * 128u + "
                          "static_cast<uint32_t>((cake_d_c0 + cake_c) * 2) / 128u * 8192u + "
                          "((static_cast<uint32_t>((cake_d_c0 + cake_c) * 2) % 128u) ^ cake_d_sw)),"));
  EXPECT_TRUE(contains(s, "if (!((K > 0))) return cudaErrorInvalidValue;  // lm.assume(K > 0)"));
  EXPECT_TRUE(contains(s, "extern \"C\" int cake_launch(const CakeLaunchArgs* a, void* stream)"));
  EXPECT_TRUE(contains(s, "extern \"C\" int cake_gemm_launch(const CakeGemmArgs* g, void* stream)"));
}

// KernelPlan::viewRowsSplit's claim, over every case it admits: in rows one
// S-byte swizzle wide, swz((r + k) * S + c) = (r + k) * S + (c ^ swizzle
// bits of r * S) whenever k is a multiple of 8 (the split the lowering emits
// for a fragment's rows: r the thread's, k the unrolled slot's).
TEST(Lowering, RowSplitSwizzleEqualsTheSwizzle) {
  auto swz = [](int S, uint32_t off) {  // the prelude's cake_swz<S>
    const uint32_t mask = static_cast<uint32_t>(S / 16 - 1) << 4;
    return off ^ ((off >> 3) & mask);
  };
  for (int S : {32, 64, 128})
    for (uint32_t r = 0; r < 64; ++r)
      for (uint32_t k = 0; k < 256; k += 8)
        for (uint32_t c = 0; c < static_cast<uint32_t>(S); c += 2) {
          const uint32_t rb = r * S, sw = (rb >> 3) & (static_cast<uint32_t>(S / 16 - 1) << 4);
          ASSERT_EQ(swz(S, (r + k) * S + c), rb + k * S + (c ^ sw)) << S << " " << r << " " << k << " " << c;
        }
}

// The lines emitRaster writes, as host code: (blockIdx.x, blockIdx.y) -> (bx, by).
static void rasterOf(unsigned x, unsigned y, unsigned gx, unsigned gy, int& bx, int& by, unsigned g = 8) {
  const unsigned long long blin = x + 1ull * gx * y, bgrp = g * 1ull * gy;
  const unsigned bx0 = static_cast<unsigned>(blin / bgrp * g), bgm = gx - bx0 < g ? gx - bx0 : g;
  bx = static_cast<int>(bx0 + blin % bgrp % bgm);
  by = static_cast<int>(blin % bgrp / bgm);
}

TEST(Lowering, TwoDimensionalGridsAreWalkedInGroups) {
  auto r = lowerFile(kSm90Gemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  for (const char* l : {"const unsigned long long cake_blin = blockIdx.x + 1ull * gridDim.x * blockIdx.y;",
                        "const unsigned long long cake_bgrp = 8ull * gridDim.y;",
                        "const unsigned cake_bx0 = static_cast<unsigned>(cake_blin / cake_bgrp * 8);",
                        "const unsigned cake_bgm = gridDim.x - cake_bx0 < 8u ? gridDim.x - cake_bx0 : 8u;",
                        "const int cake_bx = static_cast<int>(cake_bx0 + cake_blin % cake_bgrp % cake_bgm);",
                        "const int cake_by = static_cast<int>(cake_blin % cake_bgrp / cake_bgm);"})
    EXPECT_TRUE(contains(s, l)) << l;
  // every lm.block_idx of the schedule reads the remapped pair
  const size_t k = s.find("(void)cake_bx; (void)cake_by;");
  ASSERT_NE(k, std::string::npos);
  EXPECT_EQ(s.find("blockIdx.", k), std::string::npos);
  // the map is a bijection of the grid (partial last group included), so every tile is still computed once
  for (int gx : {1, 2, 7, 8, 9, 17, 64})
    for (int gy : {1, 3, 8, 33}) {
      std::vector<int> seen(gx * gy, 0);
      for (int y = 0; y < gy; ++y)
        for (int x = 0; x < gx; ++x) {
          int bx = -1, by = -1;
          rasterOf(x, y, gx, gy, bx, by);
          ASSERT_TRUE(bx >= 0 && bx < gx && by >= 0 && by < gy) << gx << "x" << gy;
          ++seen[bx + gx * by];
        }
      for (int v : seen) EXPECT_EQ(v, 1) << gx << "x" << gy;
    }
  // grids past 2^31 blocks: the corners still map inside the grid
  {
    const unsigned gx = (1u << 31) - 1, gy = 65535;  // the largest grid CUDA launches
    int bx = -1, by = -1;
    rasterOf(gx - 1, gy - 1, gx, gy, bx, by);
    EXPECT_EQ(bx, static_cast<int>(gx - 1));
    EXPECT_EQ(by, static_cast<int>(gy - 1));
  }
  // persistent schedules order their own tiles; nothing is remapped
  auto p = lowerFile(kSm90Persistent);
  ASSERT_TRUE(p.ok) << findingsText(p);
  EXPECT_FALSE(contains(p.source, "cake_bx"));
}

// cake_quad_transpose (the prelude's) on the host: word s of lane q after it is word q of lane s before it.
static void quadTransposeOf(uint32_t w[4][4]) {
  uint32_t in[4][4];
  auto stage = [&](int m, int x0, int x1, int y0, int y1) {  // lanes q, q ^ m: send (x0, x1) or (y0, y1)
    std::memcpy(in, w, sizeof in);
    for (int q = 0; q < 4; ++q) {
      const bool h = (q & m) != 0;
      const int p = q ^ m;
      const bool hp = (p & m) != 0;
      const uint32_t a = hp ? in[p][x0] : in[p][y0], b = hp ? in[p][x1] : in[p][y1];
      if (h) { w[q][x0] = a; w[q][x1] = b; } else { w[q][y0] = a; w[q][y1] = b; }
    }
  };
  stage(2, 0, 1, 2, 3);
  stage(1, 0, 2, 1, 3);
}

// An sm_80 mma.sync accumulator stored whole to a bf16 tensor: the quad's pairs are transposed so that each
// lane stores 8 adjacent elements of one n8 tile with one 16-byte st.global (docs/gpu.md "sm_80: a 16-byte
// epilogue and groups of 16 block rows"); unaligned tiles keep the pair stores; sm_90a kernels are unchanged.
TEST(Lowering, Sm80AccumulatorStoresTakeSixteenBytes) {
  auto r = lowerFile("bench/gpu/schedules/sm80/frag/fragsp13_128x128_k64_s3.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  for (const char* l : {"const bool cake_v16 = cake_inner && cake_d_c0 % 8 == 0 && cake_d_base % 8 == 0 && "
                        "cake_ext_C.s[0] % 8 == 0 && reinterpret_cast<uintptr_t>(C) % 16 == 0;",
                        "if (cake_v16) {",
                        "for (int cake_g = 0; cake_g < 2; ++cake_g) {",
                        "for (int cake_t = 0; cake_t < 4; ++cake_t) cake_w[cake_t] = cake_pack2(cake_cvt<__nv_bfloat16>("
                        "cake_f32(out[cake_i][8 * cake_g + 2 * cake_t + 0])), cake_cvt<__nv_bfloat16>(cake_f32(out[cake_i]"
                        "[8 * cake_g + 2 * cake_t + 1])));",
                        "cake_quad_transpose(cake_w[0], cake_w[1], cake_w[2], cake_w[3], cake_lane);",
                        "const int cake_c = (cake_wwarp % 2) * 64 + 8 * (4 * cake_g + cake_lane % 4);",
                        "cake_stg16(C + cake_d_base + (cake_d_r0 + cake_r) * cake_ext_C.s[0] + (cake_d_c0 + cake_c), "
                        "cake_w[0], cake_w[1], cake_w[2], cake_w[3]);"})
    EXPECT_TRUE(contains(s, l)) << l;
  // the pair stores stay for the tiles the 16-byte path does not take
  EXPECT_TRUE(contains(s, "} else {\n        if (cake_inner) {"));
  EXPECT_TRUE(contains(s, "cake_stg_pair(C + "));
  auto h = lowerFile(kSm90Gemm);
  ASSERT_TRUE(h.ok) << findingsText(h);
  EXPECT_FALSE(contains(h.source, "cake_v16"));
  // the transpose: lane q's word s is lane s's word q, so lane q holds columns 8 (4g + q) + 2 s, + 1 (s = 0..3) of
  // its row, the n8 tile whose pairs lanes 0..3 held as their word q
  uint32_t w[4][4];
  for (int q = 0; q < 4; ++q)
    for (int k = 0; k < 4; ++k) w[q][k] = 16u * q + k;
  quadTransposeOf(w);
  for (int q = 0; q < 4; ++q)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(w[q][k], 16u * k + q) << q << " " << k;
}

// sm_80 kernels walk the grid in groups of 16 block rows (timed faster there: docs/gpu.md "sm_80: a 16-byte
// epilogue and groups of 16 block rows"); the sm_90a GEMM above keeps 8.
TEST(Lowering, Sm80GridsAreWalkedInGroupsOf16) {
  auto r = lowerFile(kSm80Gemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  for (const char* l : {"const unsigned long long cake_bgrp = 16ull * gridDim.y;",
                        "const unsigned cake_bx0 = static_cast<unsigned>(cake_blin / cake_bgrp * 16);",
                        "const unsigned cake_bgm = gridDim.x - cake_bx0 < 16u ? gridDim.x - cake_bx0 : 16u;"})
    EXPECT_TRUE(contains(r.source, l)) << l;
  EXPECT_FALSE(contains(r.source, "8ull * gridDim.y"));
  for (int gx : {1, 7, 15, 16, 17, 33, 64})
    for (int gy : {1, 3, 16, 33}) {
      std::vector<int> seen(gx * gy, 0);
      for (int y = 0; y < gy; ++y)
        for (int x = 0; x < gx; ++x) {
          int bx = -1, by = -1;
          rasterOf(x, y, gx, gy, bx, by, 16);
          ASSERT_TRUE(bx >= 0 && bx < gx && by >= 0 && by < gy) << gx << "x" << gy;
          ++seen[bx + gx * by];
        }
      for (int v : seen) EXPECT_EQ(v, 1) << gx << "x" << gy;
    }
}

TEST(Lowering, Deterministic) {
  for (const char* f : {kSm90Gemm, kSm90Persistent, kSm80Gemm, "corpus/attention/sm90_fa3_fwd.cake",
                        "corpus/gemm/sm100_tcgen05_ws.cake"}) {
    auto a = lowerFile(f), b = lowerFile(f);
    ASSERT_TRUE(a.ok) << f << "\n" << findingsText(a);
    EXPECT_EQ(a.source, b.source) << f;
  }
}

TEST(Lowering, PersistentUsesGridDim) {
  auto r = lowerFile(kSm90Persistent);
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_TRUE(r.launch.persistent);
  EXPECT_TRUE(contains(r.source, "cudaDevAttrMultiProcessorCount"));
  EXPECT_TRUE(contains(r.source, "dim3 cake_grid(cake_num_sms, 1, 1);"));
  // the global ring index it = t * k_tiles + k drives slot and phase
  EXPECT_TRUE(contains(r.source, "for (int t = 0; t <"));
  EXPECT_TRUE(contains(r.source, "cake_mbar_wait(full + 8 * (cake_slot<4>(((t * ((K + 64 - 1) / 64)) + k))), "
                                 "cake_parity<4>(((t * ((K + 64 - 1) / 64)) + k)));"));
  EXPECT_TRUE(contains(r.source, "cake_tma_store_wait<1>();"));
}

// An sm_80 persistent grid is #SMs times the CTAs per SM the driver finds
// for the kernel (sm_80 tiles are sized for 2 CTAs per SM: at #SMs the
// persistent fragsp13 ran 0.495x cuBLAS against 0.581x, docs/gpu.md "sm_80:
// a persistent tile loop"); the query follows the smem attribute it depends
// on. sm_90a persistent grids stay at #SMs (PersistentUsesGridDim).
TEST(Lowering, Sm80PersistentGridFillsEveryResidentSlot) {
  auto r = lowerFile("bench/gpu/schedules/sm80/frag/pfragsp13_128x128_k64_s3.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_TRUE(r.launch.persistent);
  EXPECT_EQ(r.launch.grid, "(#SMs x CTAs per SM, 1, 1)");
  const size_t attr = s.find("cudaFuncSetAttribute(cake_pfragsp13_128x128_k64_s3_kernel, "
                             "cudaFuncAttributeMaxDynamicSharedMemorySize, cake_smem_bytes);");
  const size_t query = s.find("if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cake_ctas_per_sm, "
                              "cake_pfragsp13_128x128_k64_s3_kernel, 128, cake_smem_bytes) != cudaSuccess) {");
  const size_t scale = s.find("cake_num_sms *= cake_ctas_per_sm;");
  const size_t grid = s.find("dim3 cake_grid(cake_num_sms, 1, 1);");
  ASSERT_NE(attr, std::string::npos);
  ASSERT_NE(query, std::string::npos);
  ASSERT_NE(scale, std::string::npos);
  ASSERT_NE(grid, std::string::npos);
  EXPECT_LT(attr, query);
  EXPECT_LT(query, scale);
  EXPECT_LT(scale, grid);
  EXPECT_TRUE(contains(s, "if (cake_ctas_per_sm < 1) cake_ctas_per_sm = 1;"));
  // the K loop inside the tile loop keeps its slot unroll and steady pass
  EXPECT_TRUE(contains(s, "for (int t = 0; t <"));
  EXPECT_TRUE(contains(s, "if (cake_ss_k) for (; cake_kb_k + 5 <= ((K + 64 - 1) / 64); cake_kb_k += 3) {"));
  auto p = lowerFile(kSm90Persistent);
  ASSERT_TRUE(p.ok) << findingsText(p);
  EXPECT_EQ(p.launch.grid, "(#SMs, 1, 1)");
  EXPECT_FALSE(contains(p.source, "cake_ctas_per_sm"));
}

// lm.grid_dim(1) / (2) read the launched grid but do not make a schedule
// persistent: the grid still comes from the output store. Before, any
// lm.grid_dim gave (#SMs, 1, 1), and these kernels left most of C / W
// unwritten (caught on the H200 as `wrong` with 4064 of 4096 outputs NaN).
TEST(Lowering, GridDimOfOtherDimensionsKeepsTheDerivedGrid) {
  auto r = lowerFile("bench/gpu/schedules/decode/sm90_decode_bn32_s16_w2_r.cake");  // K walk rotated by grid_dim(1)
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_EQ(r.problem, lowering::Problem::Gemm);
  EXPECT_FALSE(r.launch.persistent);
  EXPECT_EQ(r.launch.grid, "(cdiv(C.shape[0], 64), cdiv(C.shape[1], 32), 1)");
  EXPECT_FALSE(contains(r.source, "cake_num_sms"));
  EXPECT_TRUE(contains(r.source, "static_cast<int>(gridDim.y)"));
  auto s = lowerFile("corpus/splitk/sm90_splitk_partials.cake");  // split count = grid_dim(2)
  ASSERT_TRUE(s.ok) << findingsText(s);
  EXPECT_FALSE(s.launch.persistent);
  EXPECT_EQ(s.launch.grid, "(cdiv(W.shape[1], 128), cdiv(W.shape[2], 128), cdiv(W.shape[0], 1))");
}

// A persistent schedule (lm.grid_dim(0)) whose output also moves with
// block_idx(1) gets #SMs CTAs in x and the store's extent in y.
TEST(Lowering, PersistentKeepsTheStoreDimensionsBeyondX) {
  auto m = compileText("p.cake", R"(# expect: pass
@cake.schedule(target="sm_90a")
def per_head(lm, X: LM.tma2d, Y: LM.tma2d, R: LM.i32):
    pool = lm.smem(8192)
    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    ld = lm.role(warps=[0, 1, 2, 3])
    bar = lm.barrier(prod=[ld], cons=[ld], init_count=1)
    n = lm.cdiv(max(R - lm.block_idx(0), 0), lm.grid_dim(0))
    with ld:
        for t in lm.range(0, n):
            r = lm.block_idx(0) + t * lm.grid_dim(0)
            v.tma_load(X, coords=(r * 64, lm.block_idx(1) * 64), barrier=bar)
            lm.wait(bar, phase=t % 2)
            v.tma_store(Y, coords=(r * 64, lm.block_idx(1) * 64))
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
)");
  ASSERT_EQ(m.schedules.size(), 1u);
  auto r = lowering::lowerToCuda(m.schedules[0], {});
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_TRUE(r.launch.persistent);
  EXPECT_EQ(r.launch.grid, "(#SMs, cdiv(Y.shape[1], 64), 1)");
  EXPECT_TRUE(contains(r.source, "dim3 cake_grid(cake_num_sms, cake_cdiv(static_cast<int>(cake_t[1].dims[1]), 64), 1);"));
}

TEST(Lowering, Sm80Multistage) {
  auto r = lowerFile(kSm80Gemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.target, ir::Target::SM80);
  EXPECT_EQ(r.launch.threads, 128);
  EXPECT_FALSE(contains(s, "wgmma.mma_async.sync"));
  EXPECT_FALSE(contains(s, "setmaxnreg.inc"));
  EXPECT_FALSE(contains(s, "cp.async.bulk.tensor"));
  // gmem tensors: a typed pointer and its extents
  EXPECT_TRUE(contains(s, "__nv_bfloat16* A, const cake_ext<2> cake_ext_A,"));
  EXPECT_TRUE(contains(s, "cake_cp_async<16>(cake_dst + cake_swz<64>(static_cast<uint32_t>((cake_r) * 64 + (cake_c * 2))),"));
  EXPECT_TRUE(contains(s, "cake_cp_async_wait<1>();"));
  // one role instance = the whole block: the sync after the cp.async wait is __syncthreads
  EXPECT_TRUE(contains(s, "__syncthreads();  // the instance is the whole block"));
  // (an mma that loads its own fragments keeps the row-major order: Sm80MmaSyncRunsTheWarpTileSerpentine)
  EXPECT_TRUE(contains(s, "cake_mma_16816_bf16(acc[2 * i][2 * j], acc[2 * i][2 * j + 1], acc[2 * i + 1][2 * j], "
                          "acc[2 * i + 1][2 * j + 1], cake_af[i]"));
  // ldmatrix rows: this thread's offset of tile 0 at each k-step (its row bytes, XOR its swizzle, plus the
  // column) once at the role's start, each 16-row tile a constant offset from it (16 rows of 64 B = two
  // periods of the 64B swizzle: RowSplitSwizzleEqualsTheSwizzle)
  EXPECT_TRUE(contains(s, "const uint32_t cake_ldo1 = cake_here((static_cast<uint32_t>((0) + (cake_wwarp / 2) * 64 + "
                          "cake_lane % 16) * 64u + static_cast<uint32_t>(0) * 64u + ((static_cast<uint32_t>((2 * 1 + "
                          "cake_lane / 16) * 16) % 64u) ^ (((static_cast<uint32_t>((0) + (cake_wwarp / 2) * 64 + "
                          "cake_lane % 16) * 64u) >> 3) & 48u))));"));
  EXPECT_TRUE(contains(s, "const uint32_t cake_ldo3 = cake_here((static_cast<uint32_t>((0) + (cake_wwarp % 2) * 64 + "
                          "cake_lane % 8 + (cake_lane / 16) * 8) * 64u + static_cast<uint32_t>(0) * 64u + "
                          "((static_cast<uint32_t>((2 * 1 + (cake_lane / 8) % 2) * 16) % 64u) ^ "));
  EXPECT_EQ(count(s, "const uint32_t cake_ldo"), 4u);  // a and b, 2 k-steps each
  EXPECT_LT(s.find("const uint32_t cake_ldo0"), s.find("int cake_kb_k = 0;"));
  EXPECT_TRUE(contains(s, "const uint32_t cake_ao[2] = {cake_ldo0, cake_ldo1};"));
  EXPECT_TRUE(contains(s, "const uint32_t cake_bo[2] = {cake_ldo2, cake_ldo3};"));
  EXPECT_TRUE(contains(s, "cake_ldmatrix_x4(cake_af[i], cake_a + cake_ao[cake_k] + static_cast<uint32_t>(16 * i) * 64u);"));
  EXPECT_TRUE(contains(s, "cake_ldmatrix_x4(cake_bf[j], cake_b + cake_bo[cake_k] + static_cast<uint32_t>(16 * j) * 64u);"));
  EXPECT_FALSE(contains(s, "cake_asw"));
  EXPECT_FALSE(contains(s, "cake_ldmatrix_x4(cake_af[i], cake_a + cake_swz<"));
  EXPECT_TRUE(contains(s, "float acc[8][16];"));
  EXPECT_TRUE(contains(s, "__nv_bfloat16 out[8][16];"));
  // guarded paired stores to C; a tile wholly inside C stores its pairs with no test each (after the 16-byte
  // path of an aligned interior tile: Sm80AccumulatorStoresTakeSixteenBytes)
  EXPECT_TRUE(contains(s, "cake_stg_pair(C + "));
  EXPECT_TRUE(contains(s, "< cake_ext_C.d[1]"));
  EXPECT_TRUE(contains(s, "const bool cake_inner = cake_pairs && cake_d_plane && cake_d_c0 >= 0 && cake_d_c0 + 128 <= "
                          "cake_ext_C.d[1] && cake_d_r0 >= 0 && cake_d_r0 + 128 <= cake_ext_C.d[0];\n      "
                          "const bool cake_v16 = cake_inner && "));
  EXPECT_TRUE(contains(s, "} else {\n        if (cake_inner) {"));
  EXPECT_EQ(count(s, "  cake_stg_pair(C + cake_d_base + (cake_d_r0 + cake_r) * cake_ext_C.s[0] + (cake_d_c0 + cake_c), "
                     "cake_x, cake_y);\n"),
            1u);  // the inner loop's, untested
  EXPECT_EQ(count(s, "if (cake_pairs && cake_d_plane && "), 1u);  // the guarded loop's
  // the mainloop needs no syncs beyond the one after each cp_async_wait (the prologue's, and one in each
  // of the loop's bodies: 3 in the steady pass, 3 unrolled, 1 for the remaining k-blocks)
  EXPECT_EQ(count(s, "__syncthreads();  // the instance is the whole block"), 8u);
  // an interior tile copies without per-chunk bounds arithmetic; the guarded loop handles the rest
  // (the test against bounds computed once at the role's start: InteriorTestBoundsEqualTheTest)
  EXPECT_TRUE(contains(s, "if (cake_plane && static_cast<unsigned long long>(cake_r0) < static_cast<unsigned long "
                          "long>(cake_cpt0_0_2_rl) && static_cast<unsigned long long>(cake_c0) < static_cast<unsigned "
                          "long long>(cake_cpt0_0_2_cl)) {"));
  EXPECT_TRUE(contains(s, "const long long cake_cpt0_0_2_rl = cake_here(cake_ext_A.d[0] - 128 + 1 > 0 ? "
                          "cake_ext_A.d[0] - 128 + 1 : 0LL);"));
  EXPECT_TRUE(contains(s, "const long long cake_cpt0_0_2_cl = cake_here(cake_ext_A.d[1] - 32 + 1 > 0 ? "
                          "cake_ext_A.d[1] - 32 + 1 : 0LL);"));
  EXPECT_FALSE(contains(s, "cake_r0 >= 0 && cake_r0 + 128"));
  // each thread's interior chunks: one shared and one global address plus a constant step per pass
  // (128 threads = 32 rows of 4 chunks a pass; 2048 B is a multiple of the 64B swizzle's 512 B period);
  // the thread's offsets and the step once at the role's start, kept there by cake_here
  EXPECT_TRUE(contains(s, "const long long cake_cpt0_0_2_g = cake_here(static_cast<long long>(cake_inst_thread / 4) * "
                          "cake_ext_A.s[0] + ((cake_inst_thread % 4) * 8));"));
  EXPECT_TRUE(contains(s, "const long long cake_cpt0_0_2_pass = 32LL * cake_ext_A.s[0];"));
  EXPECT_TRUE(contains(s, "const auto cake_p = A + (cake_base + cake_r0 * cake_ext_A.s[0] + cake_cpt0_0_2_g + cake_c0);"));
  EXPECT_TRUE(contains(s, "cake_cp_async<16>(cake_d + cake_i * 2048u, cake_p + cake_i * cake_cpt0_0_2_pass, 16);"));
  EXPECT_EQ(count(s, "const long long cake_cpt"), 8u);  // A and B: offset, step and the two bounds, once each
  EXPECT_EQ(count(s, "const auto cake_p = "), 16u);  // 2 copies in the prologue, 2 in each of the loop's 3 + 3 + 1 bodies
  EXPECT_EQ(count(s, "const auto cake_src = "), 0u);
  EXPECT_LT(s.find("const long long cake_cpt0_0_2_g"), s.find("for (int s = 0;"));
  // init=(k == 0) in the k-block loop that starts at 0, the mma the first statement naming acc: the
  // accumulator is zeroed once before the loop (when it runs), not behind a branch on every k-block
  EXPECT_TRUE(contains(s, "// acc: zeroed once here for the mma with init=(k == 0) in the first iteration of the loop "
                          "below\n    if ((0) < (((K + 32 - 1) / 32))) {"));
  EXPECT_LT(s.find("zeroed once here"), s.find("int cake_kb_k = 0;"));
  EXPECT_FALSE(contains(s, "if ((k == 0))"));
  EXPECT_TRUE(contains(s, "; init= zeroed before the loop"));
}

// The model checker's cluster barrier reads how the lowered kernel's threads
// end from ir::kernelEndsWithBlockBarrier (a warp without a role waits at
// the closing __syncthreads() of a TMEM kernel, exits at once elsewhere):
// the lowering must emit that barrier exactly where the fact says so.
TEST(Lowering, ClosingBlockBarrierIsTheFactTheModelReads) {
  const std::pair<const char*, bool> cases[] = {
      {"corpus/gemm/sm100_tcgen05_ws.cake", true},
      {"corpus/bugs/sync.cluster-exit/sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed.cake", true},
      {"corpus/bugs/sync.cluster-exit/sm90_multicast_no_final_cluster_sync_fixed.cake", false},
      {kSm90Gemm, false},
  };
  for (const auto& [rel, ends] : cases) {
    auto m = compileFile(rel);
    ASSERT_FALSE(m.schedules.empty()) << rel;
    EXPECT_EQ(ir::kernelEndsWithBlockBarrier(m.schedules[0]), ends) << rel;
    auto r = lowering::lowerToCuda(m.schedules[0], {});
    ASSERT_TRUE(r.ok) << rel << "\n" << findingsText(r);
    const size_t done = r.source.find("every role is done with TMEM");
    EXPECT_EQ(done != std::string::npos, ends) << rel;
    if (done != std::string::npos) EXPECT_NE(r.source.find("__syncthreads();", done), std::string::npos) << rel;
  }
}

TEST(Lowering, Sm100Tcgen05Gemm) {
  auto r = lowerFile("corpus/gemm/sm100_tcgen05_ws.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.target, ir::Target::SM100a);
  ASSERT_FALSE(r.arch_flags.empty());
  EXPECT_EQ(r.arch_flags[0], "-gencode=arch=compute_100a,code=sm_100a");
  EXPECT_TRUE(contains(s, "compile-only here"));
  // TMEM: allocated by warp 0 (128 columns), freed at the end
  EXPECT_TRUE(contains(s, "if (cake_warp == 0) cake_tmem_alloc(cake_smem + "));
  EXPECT_TRUE(contains(s, ", 128);"));
  EXPECT_TRUE(contains(s, "cake_tmem_dealloc(cake_tmem_base, 128);"));
  // the MMA warp: elected thread, 4 k-steps, instruction descriptor bf16 x bf16 -> f32, M=128, N=128
  EXPECT_TRUE(contains(s, "cake_umma_f16(cake_d, cake_umma_desc(cake_a + cake_k * 32, 1024, 2), "
                          "cake_umma_desc(cake_b + cake_k * 32, 1024, 2), 0x08200490u, cake_k == 0 ? cake_acc : 1);"));
  EXPECT_TRUE(contains(s, "cake_umma_commit((empty + 8 * (cake_slot<4>(k))));"));
  EXPECT_TRUE(contains(s, "cake_umma_commit(acc_full);"));
  // the epilogue: tcgen05.ld of its lane quarter, 32 columns at a time
  EXPECT_TRUE(contains(s, "cake_tmem_ld_x32(cake_taddr + 96, cake_v);"));
  EXPECT_TRUE(contains(s, "((32u * (cake_warp % 4)) << 16)"));
  EXPECT_TRUE(contains(s, "cake_tc_fence_after();"));
}

// Partial TMEM regions moved asynchronously: each single-warp instance
// loads its own lane quarter straight into its fragment's registers with
// tcgen05.ld, and waits (tcgen05.wait::ld) only at lm.tmem_load_wait().
TEST(Lowering, AsyncTmemLoadOfALaneQuarter) {
  auto r = lowerFile("corpus/gemm/sm100_tmem_quarters.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_TRUE(contains(s, "cake_tmem_ld_x32(cake_taddr + 96, *reinterpret_cast<uint32_t(*)[32]>(&"));
  EXPECT_EQ(count(s, "cake_tmem_ld_x32(cake_taddr + "), 4u);  // 4 blocks of 32 columns
  EXPECT_EQ(count(s, "cake_tmem_wait_ld();  // tcgen05.wait::ld"), 1u);
  EXPECT_TRUE(contains(s, "((32u * (cake_warp % 4)) << 16)"));
  // a lane quarter out of its warp's reach is refused, not emitted
  auto m = compileText("q.cake", R"(@cake.schedule(target="sm_100a")
def q(lm, X: LM.gmem):
    t = lm.tmem(cols=0, width=32, shape=(128, 32), dtype=lm.f32)
    r = lm.regs(shape=(32, 32), dtype=lm.f32)
    w = lm.role(warps=[1])
    with w:
        lm.tmem_load(r, t[0:32, :])
        lm.tmem_load_wait()
        lm.copy(X, r, coords=(0, 0))
)");
  ASSERT_FALSE(m.schedules.empty());
  auto bad = lowering::lowerToCuda(m.schedules[0], {});
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(contains(findingsText(bad), "warp 1 of instance 0 reaches TMEM lanes 32..63")) << findingsText(bad);
}

// Programmatic dependent launch: griddepcontrol in the kernel, the launch
// attribute on the host side.
TEST(Lowering, ProgrammaticDependentLaunch) {
  auto r = lowerFile("corpus/bugs/sync.grid-dependency/sm90_pdl_load_before_wait_fixed.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_TRUE(contains(s, "asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");"));
  EXPECT_EQ(count(s, "cake_griddep_wait();  //"), 1u);
  EXPECT_EQ(count(s, "cake_griddep_launch_dependents();"), 1u);
  EXPECT_TRUE(contains(s, "cake_pdl_attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;"));
  EXPECT_TRUE(contains(s, "cudaLaunchKernelEx(&cake_cfg, "));
  // without PDL ops the launch is the plain one
  auto plain = lowerFile(kSm90Gemm);
  ASSERT_TRUE(plain.ok);
  EXPECT_FALSE(contains(plain.source, "cudaLaunchKernelEx"));
}

// The interior test of a stepped cp.async copy against bounds computed once per thread (emitCpAsyncHoists):
// 0 <= r0 && r0 + R <= d is (unsigned) r0 < max(d - R + 1, 0), for every 64-bit r0, including negative
// ones and extents below the tile.
TEST(Lowering, InteriorTestBoundsEqualTheTest) {
  const int64_t big = int64_t{1} << 40;
  for (int64_t d : {int64_t{0}, int64_t{1}, int64_t{63}, int64_t{64}, int64_t{65}, int64_t{127}, int64_t{128},
                    int64_t{129}, int64_t{4096}, int64_t{3000}, big})
    for (int64_t R : {int64_t{1}, int64_t{16}, int64_t{64}, int64_t{128}, int64_t{256}})
      for (int64_t r0 : {-big, int64_t{-129}, int64_t{-1}, int64_t{0}, int64_t{1}, R - 1, d - R - 1, d - R, d - R + 1,
                         d - 1, d, d + 1, big}) {
        const bool test = r0 >= 0 && r0 + R <= d;
        const int64_t rl = d - R + 1 > 0 ? d - R + 1 : 0;
        EXPECT_EQ(static_cast<unsigned long long>(r0) < static_cast<unsigned long long>(rl), test)
            << "d " << d << " R " << R << " r0 " << r0;
      }
}

// sm_80 loops whose body names slots as `v + c` are unrolled by the stages: each copy of the body has
// constant slots ((lo + u + c) mod stages), the remaining iterations run the plain loop; other targets and
// loops of a constant trip count below the factor keep the plain loop.
TEST(Lowering, Sm80LoopsUnrollBySlots) {
  auto r = lowerFile("bench/gpu/schedules/sm80/frag/fragpre_128x128_k64_s3.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  const size_t main = s.find("for (; cake_kb_k + 3 <= ((K + 64 - 1) / 64); cake_kb_k += 3) {");
  ASSERT_NE(main, std::string::npos);
  EXPECT_LT(s.find("int cake_kb_k = 0;"), main);
  size_t at = main;
  for (int u = 0; u < 3; ++u) {
    const size_t copy = s.find("const int k = cake_kb_k + " + std::to_string(u) + ";", at);
    ASSERT_NE(copy, std::string::npos) << u;
    // the refill of k + 2, the fragments of k, the next k-block's fragments (k + 1)
    const size_t refill = s.find("const uint32_t cake_dst = (smem_a + 16384 * (" + std::to_string((u + 2) % 3) + "));", copy);
    const size_t frag = s.find("const uint32_t cake_s = (smem_a + 16384 * (" + std::to_string(u) + "));", copy);
    const size_t next = s.find("const uint32_t cake_s = (smem_b + 16384 * (" + std::to_string((u + 1) % 3) + "));", frag);
    const size_t end = u < 2 ? s.find("const int k = cake_kb_k + " + std::to_string(u + 1) + ";", copy)
                             : s.find("for (int k = cake_kb_k; k < ((K + 64 - 1) / 64); ++k) {", copy);
    EXPECT_LT(refill, frag) << u;
    EXPECT_LT(next, end) << u;
    at = copy + 1;
  }
  // the remainder: the plain loop's slots
  const size_t rest = s.find("for (int k = cake_kb_k; k < ((K + 64 - 1) / 64); ++k) {");
  ASSERT_NE(rest, std::string::npos);
  EXPECT_EQ(count(s, "cake_slot<3>((k + 2))"), 2u);  // the two refills, in the remainder only
  EXPECT_GT(s.find("cake_slot<3>((k + 2))"), rest);
  EXPECT_EQ(count(s, "cake_slot<3>(k)"), 6u);  // 6 fragment loads of slot k, remainder only
  // the prologue's 2-iteration loop is below the factor: plain
  EXPECT_TRUE(contains(s, "for (int s = 0; s < 2; ++s) {"));
  EXPECT_FALSE(contains(s, "cake_kb_s"));
  // other targets: unchanged
  auto h = lowerFile(kSm90Gemm);
  ASSERT_TRUE(h.ok) << findingsText(h);
  EXPECT_FALSE(contains(h.source, "cake_kb_"));
  EXPECT_TRUE(contains(h.source, "cake_slot<4>(k)"));
}

TEST(Lowering, UnswizzledMmaOperandsAreBlocked) {
  // 128x128 bf16 slots without a swizzle: stored as two 128B-swizzled column
  // blocks so that TMA boxes and tcgen05 descriptors take them
  auto r = lowerFile("corpus/basics/paper_fragment_fixed.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_TRUE(contains(s, "const int cake_box_Q_smem_q[3] = {1, 128, 64};"));
  EXPECT_TRUE(contains(s, "cake_box_Q_smem_q, CU_TENSOR_MAP_SWIZZLE_128B)"));
  EXPECT_TRUE(contains(s, "+ 16384, &cake_tmap_Q_smem_q,"));
  EXPECT_TRUE(contains(s, "cake_umma_desc(cake_a + (cake_k * 32 / 128) * 16384 + (cake_k * 32) % 128, 1024, 2)"));
}

TEST(Lowering, FlashAttentionFragments) {
  auto r = lowerFile("corpus/attention/sm90_fa3_fwd.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.problem, lowering::Problem::None);  // not a GEMM: only the generic launcher
  EXPECT_FALSE(contains(s, "cake_gemm_launch"));
  // rank-3 tensor maps, box padded to the tensor's rank
  EXPECT_TRUE(contains(s, "const int cake_box_Q_smem_q[3] = {1, 128, 64};"));
  EXPECT_TRUE(contains(s, "cake_tma_load_3d("));
  // S and P share the wgmma layout; the row statistics are [2][1] per thread
  EXPECT_TRUE(contains(s, "float s_acc[2][16];"));
  EXPECT_TRUE(contains(s, "__nv_bfloat16 p[2][16];"));
  EXPECT_TRUE(contains(s, "float m_i[2][1];"));
  // the row max over a quad: shuffles with lane masks 1 and 2, no shared memory
  EXPECT_TRUE(contains(s, "cake_v = fmaxf(cake_v, cake_shfl_xor(cake_v, 1));"));
  EXPECT_TRUE(contains(s, "cake_v = fmaxf(cake_v, cake_shfl_xor(cake_v, 2));"));
  EXPECT_FALSE(contains(s, "cake_scratch"));
  // a thread's 16 elements of a row in 4 independent chains, combined pairwise
  EXPECT_TRUE(contains(s, "for (int cake_b = 4; cake_b < 16; ++cake_b) cake_vp[cake_b % 4] = fmaxf(cake_vp[cake_b % 4], "
                          "cake_f32(s_acc[cake_a][cake_b]));"));
  EXPECT_TRUE(contains(s, "cake_v = fmaxf(fmaxf(cake_vp[0], cake_vp[1]), fmaxf(cake_vp[2], cake_vp[3]));"));
  // exp2 is one ex2.approx.ftz (exp2f's non-ftz ex2 costs a compare and two multiplies more per element)
  EXPECT_TRUE(contains(s, "cake_exp2(cake_f32(s_acc[cake_i][cake_j]))"));
  EXPECT_TRUE(contains(s, "asm(\"ex2.approx.ftz.f32 %0, %1;\""));
  EXPECT_FALSE(contains(s, "exp2f(cake_f32"));
  // P = bf16(S) converts two elements at once
  EXPECT_TRUE(contains(s, "cake_cvt2<__nv_bfloat16>(cake_f32(s_acc[cake_i][cake_jj + 0]), cake_f32(s_acc[cake_i][cake_jj + 1]), "
                          "p[cake_i][cake_jj + 0], p[cake_i][cake_jj + 1]);"));
  // broadcast of a row statistic: (64,64) - (64,1)
  EXPECT_TRUE(contains(s, "cake_f32(m_new[cake_i][0])"));
  // O += P V: wgmma with A from registers
  EXPECT_TRUE(contains(s, "cake_wgmma_rs_m64n64k16_bf16(o_acc[0], o_acc[1], cake_ra[cake_k][0][0], cake_ra[cake_k][0][1],"));
  // its A fragments are packed before the wgmma.fence, never between the wgmmas (ptxas would insert
  // warpgroup.arrives there, C7519, and serialise the wgmmas where one lands on a divergent path, C7520)
  const size_t pack = s.find("cake_ra[cake_k][0][0] = cake_pack2(p[0][4 * cake_k + 0], p[0][4 * cake_k + 1]);");
  const size_t rs = s.find("cake_wgmma_rs_m64n64k16_bf16(o_acc[0]");  // the call, not the helper
  ASSERT_NE(pack, std::string::npos);
  ASSERT_NE(rs, std::string::npos);
  EXPECT_NE(s.find("cake_wgmma_fence();", pack), std::string::npos);
  EXPECT_LT(s.find("cake_wgmma_fence();", pack), rs);
  EXPECT_EQ(s.find("cake_pack2(", rs), std::string::npos);
}

TEST(Lowering, RunningArgminAcrossCentroidTiles) {
  auto r = lowerFile("corpus/kmeans/sm90_assign_streamed_centroids.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  // 128 rows per warpgroup: two m64 blocks of the 128x128 tile, 4 rows x 32 columns per thread
  EXPECT_TRUE(contains(s, "float dots[4][32];"));
  EXPECT_TRUE(contains(s, "float best[4][1];"));
  // the thread's columns in order: the first strictly smaller wins, the slot becomes the index once
  EXPECT_TRUE(contains(s, "if (cake_e < cake_v) { cake_v = cake_e; cake_xb = cake_b; }"));
  // across the quad, then folded into the running (best, lab) with the tile's base index
  EXPECT_TRUE(contains(s, "cake_argmin_step(cake_v, cake_x, cake_o, cake_oi);"));
  EXPECT_TRUE(contains(s, "cake_argmin_step(cake_bv, cake_bi, cake_red[cake_a], cake_redi[cake_a] + ("));
  EXPECT_TRUE(contains(s, "best[cake_a][0] = cake_cvt<float>(cake_bv);"));
  EXPECT_FALSE(contains(s, "cake_scratch"));  // the columns of a row are within one quad
}

TEST(Lowering, NeverRetargets) {
  auto m = compileFile(kSm90Gemm);
  ASSERT_FALSE(m.schedules.empty());
  lowering::LowerOptions o;
  o.target = ir::Target::SM80;
  auto r = lowering::lowerToCuda(m.schedules[0], o);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "lower.unsupported");
}

namespace {
const char* kTwoWarpConsumers = R"(
@cake.schedule(target="sm_90a")
def two_warp(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    producer  = lm.role(warps=[0])
    consumers = lm.role(warps=[4, 5, 6, 7], group=2)
    full  = lm.barrier(count=2, prod=[producer], cons=[consumers], init_count=1)
    empty = lm.barrier(count=2, prod=[consumers], cons=[producer], init_count=2)
    with producer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(lm.block_idx(0) * 64, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(lm.block_idx(1) * 64, k * 64), iter=k, barrier=full)
    with consumers:
        for k in lm.range(0, lm.cdiv(K, 64)):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(C, acc, coords=(lm.block_idx(0) * 64, lm.block_idx(1) * 64))
)";
}  // namespace

TEST(Lowering, NonWarpgroupInstancesUseMmaSync) {
  // consumers split into instances of 2 warps: wgmma cannot be issued; sm_90a has mma.sync
  auto m = compileText("two_warp.cake", kTwoWarpConsumers);
  ASSERT_FALSE(m.schedules.empty());
  auto r = lowering::lowerToCuda(m.schedules[0]);
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_TRUE(contains(r.source, "cake_mma_16816_bf16("));
  EXPECT_FALSE(contains(r.source, "wgmma.mma_async.sync.aligned.m64"));
  EXPECT_TRUE(contains(r.source, "mma_wait: mma.sync is synchronous"));
}

TEST(Lowering, TransposedWgmmaForDecodeTiles) {
  // acc 8 x 64 (M = 8: no wgmma): b's 64 rows on the wgmma's M side, a its
  // B (n = 8), into a fragment declared as the transpose of the wgmma layout
  // (docs/ir-extensions.md "Transposed wgmma")
  auto r = lowerFile("corpus/gates/mma.no-instruction/good_wgmma_transposed_m8.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_TRUE(contains(s, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"));
  EXPECT_TRUE(contains(s, "template <int I, int NC>\n__device__ __forceinline__ void cake_wgmma_t_m64n8k16_bf16(float (&d)[2][NC], "));
  // wgmma register k: column slot 2 * (k / 4) + k % 2, row half (k / 2) % 2 of block I
  EXPECT_TRUE(contains(s, "\"+f\"(d[0][2 * I + 0]), \"+f\"(d[1][2 * I + 0]), \"+f\"(d[0][2 * I + 1]), \"+f\"(d[1][2 * I + 1])"));
  EXPECT_TRUE(contains(s, "float acc[2][2];"));
  EXPECT_TRUE(contains(s, "transposed wgmma accumulator layout"));
  // the A descriptor is smem_b's slot, the B descriptor smem_a's
  EXPECT_TRUE(contains(s, "cake_wgmma_t_m64n8k16_bf16<0, 2>(acc, cake_wgmma_desc_add(cake_da0, "));
  EXPECT_FALSE(contains(s, "m64n64k16"));
  // two m64 blocks of B rows and n = 16 (the split-K decode partial of gen.py)
  auto r2 = lowerFile("bench/gpu/schedules/decode/sm90_decode_splitk_t16_bn128_s12_rg256_pdl.cake");
  ASSERT_TRUE(r2.ok) << findingsText(r2);
  EXPECT_TRUE(contains(r2.source, "cake_wgmma_t_m64n16k16_bf16<0, 4>(acc, "));
  EXPECT_TRUE(contains(r2.source, "cake_wgmma_t_m64n16k16_bf16<1, 4>(acc, "));
  EXPECT_TRUE(contains(r2.source, "float acc[4][4];"));
  // a plain tile keeps the plain helper
  auto plain = lowerFile(kSm90Gemm);
  ASSERT_TRUE(plain.ok);
  EXPECT_FALSE(contains(plain.source, "cake_wgmma_t_"));
}

TEST(Lowering, TransposedWgmmaIssuesOneBlockAtATime) {
  // with a fragment of >= 32 registers a thread, the m64 blocks of a
  // transposed wgmma each run through all their k-steps before the next
  // block's first: issued k-step by k-step across the blocks, ptxas
  // serialised every wgmma of such kernels (C7520; docs/gpu.md "Decode,
  // ninth pass"); below that the blocks alternate within each k-step
  auto r = lowerFile("bench/gpu/schedules/decode/sm90_decode_splitk_t32_bn128_s10_rg256_pdl.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  const std::string loop = "#pragma unroll\n        for (int cake_k = 0; cake_k < 4; ++cake_k) {\n          ";
  const size_t b0 = s.find(loop + "cake_wgmma_t_m64n32k16_bf16<0, 4>(acc, cake_wgmma_desc_add(cake_da0, cake_k * 32),\n"
                                  "              cake_wgmma_desc_add(cake_db, cake_k * 32), cake_k == 0 ? cake_scale_d : 1);\n"
                                  "        }\n");
  const size_t b1 = s.find(loop + "cake_wgmma_t_m64n32k16_bf16<1, 4>(acc, cake_wgmma_desc_add(cake_da1, cake_k * 32),");
  ASSERT_NE(b0, std::string::npos) << s.substr(s.find("cake_wgmma_fence();"), 800);
  ASSERT_NE(b1, std::string::npos);
  EXPECT_LT(b0, b1);
  EXPECT_TRUE(contains(s, "float acc[8][4];"));
  auto r16 = lowerFile("bench/gpu/schedules/decode/sm90_decode_splitk_t16_bn128_s12_rg256_pdl.cake");  // 16 a thread
  ASSERT_TRUE(r16.ok) << findingsText(r16);
  EXPECT_TRUE(contains(r16.source, loop + "cake_wgmma_t_m64n16k16_bf16<0, 4>(acc, cake_wgmma_desc_add(cake_da0, cake_k * 32),\n"
                                          "              cake_wgmma_desc_add(cake_db, cake_k * 32), cake_k == 0 ? cake_scale_d : 1);\n"
                                          "          cake_wgmma_t_m64n16k16_bf16<1, 4>(acc, "));
}

TEST(Lowering, TransposedAccumulatorConvertsOnItsBits) {
  // the bf16 epilogue of a transposed wgmma accumulator converts with cake_cvtr (integer rounding:
  // cvt.rn.bf16.f32 of those registers made ptxas serialise the wgmmas, C7514; the nvcc side is
  // LoweringCorpus.TransposedBf16EpilogueKeepsWgmmaAsync); other fragments keep cake_cvt
  auto t = lowerFile("bench/gpu/schedules/decode/sm90_decode_t8_bn128_s12.cake");
  ASSERT_TRUE(t.ok) << findingsText(t);
  EXPECT_TRUE(contains(t.source, "cake_cvtr<__nv_bfloat16>(cake_f32(acc[cake_i][cake_j]))"));
  EXPECT_FALSE(contains(t.source, "cake_cvt<__nv_bfloat16>(cake_f32(acc["));
  auto p = lowerFile("bench/gpu/schedules/decode/sm90_decode_bn64_s13_w1.cake");  // a 64-row tile, not transposed
  ASSERT_TRUE(p.ok) << findingsText(p);
  EXPECT_FALSE(contains(p.source, "cake_cvtr<__nv_bfloat16>(cake_f32("));
  EXPECT_TRUE(contains(p.source, "cake_cvt<__nv_bfloat16>(cake_f32(acc[")) << p.source.substr(p.source.find("lm.copy(smem_c"), 1500);
}

TEST(Lowering, GemmBindingNeedsThreeTensors) {
  const std::string text = R"(
@cake.schedule(target="sm_90a")
def two(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool = lm.smem(16384)
    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    w = lm.role(warps=[0])
    b = lm.barrier(count=1, prod=[w], cons=[w], init_count=1)
    with w:
        v.tma_load(A, coords=(0, 0), stage=0, barrier=b)
        lm.wait(b, stage=0)
        v.tma_store(B, coords=(lm.block_idx(0) * 64, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)";
  auto m = compileText("two.cake", text);
  ASSERT_FALSE(m.schedules.empty());
  lowering::LowerOptions gemm;
  gemm.problem = lowering::Problem::Gemm;
  auto r = lowering::lowerToCuda(m.schedules[0], gemm);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "lower.binding");
  // `cake lower` (Problem::Auto): the generic launcher only
  auto a = lowering::lowerToCuda(m.schedules[0]);
  ASSERT_TRUE(a.ok) << findingsText(a);
  EXPECT_EQ(a.problem, lowering::Problem::None);
  EXPECT_TRUE(contains(a.source, "int cake_launch(const CakeLaunchArgs* a, void* stream)"));
  EXPECT_TRUE(contains(a.source, "a->num_tensors != 2 || a->num_i32 != 1 || a->num_f32 != 0"));
  EXPECT_TRUE(contains(a.source, "dim3 cake_grid(cake_cdiv(static_cast<int>(cake_t[1].dims[0]), 64), 1, 1);"));
}

TEST(Lowering, NamesAreSanitised) {
  // schedule names that are C++ keywords, CUDA names or cake_* names become other identifiers;
  // a backslash in a source line never reaches a // comment (it would splice the next line)
  const std::string text =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def cake_k(lm, float: LM.gmem, uint32_t: LM.i32):\n"
      "    pool = lm.smem(1024)\n"
      "    threadIdx = pool.view(offset=0, shape=(8, 64), dtype=lm.f32)\n"
      "    cake_acc = lm.regs(shape=(8, 64), dtype=lm.f32)\n"
      "    w = lm.role(warps=[0])\n"
      "    with w:\n"
      "        lm.fill(cake_acc, 1.5)  # a comment with a backslash \\\n"
      "        lm.copy(threadIdx[0], cake_acc)\n"
      "        lm.copy(float, cake_acc, coords=(lm.block_idx(0) * 8, 0))\n";
  auto m = compileText("names.cake", text);
  ASSERT_FALSE(m.schedules.empty());
  auto r = lowering::lowerToCuda(m.schedules[0]);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.kernel_name, "cake_u_cake_k_kernel");
  EXPECT_TRUE(contains(s, "float* float_, const cake_ext<2> cake_ext_float_"));
  EXPECT_TRUE(contains(s, "const int uint32_t_) {"));
  EXPECT_TRUE(contains(s, "const uint32_t threadIdx_ = cake_pool_pool + 0;"));
  EXPECT_TRUE(contains(s, "float u_cake_acc[1][64];"));
  for (size_t p = s.find('\\'); p != std::string::npos; p = s.find('\\', p + 1))
    EXPECT_NE(s[p + 1], '\n') << "a line ends in a backslash";
}

TEST(Lowering, NamespaceOption) {
  lowering::LowerOptions o;
  o.namespace_name = "sched_1";
  auto r = lowerFile(kSm90Gemm, o);
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_TRUE(contains(r.source, "\nnamespace sched_1 {\n"));
  EXPECT_TRUE(contains(r.source, "}  // namespace sched_1"));
  EXPECT_FALSE(contains(r.source, "extern \"C\""));
  // the #includes stay outside the namespace
  EXPECT_LT(r.source.find("#include <cuda.h>"), r.source.find("namespace sched_1"));
  o.namespace_name = "not an identifier";
  auto bad = lowerFile(kSm90Gemm, o);
  EXPECT_FALSE(bad.ok);
}

TEST(Lowering, SymbolicShapesAreSpecialised) {
  const char* f = "corpus/layout/good_tx_balance_symbolic.cake";
  auto r = lowerFile(f);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "lower.unsupported");
  EXPECT_TRUE(contains(r.findings[0].message, "depends on BM")) << findingsText(r);
  lowering::LowerOptions o;
  o.specialize["BM"] = 128;
  auto s = lowerFile(f, o);
  ASSERT_TRUE(s.ok) << findingsText(s);
  EXPECT_TRUE(contains(s.source, "if (BM != 128) return cudaErrorInvalidValue;"));
  o.specialize["BM"] = 96;  // violates lm.assume(BM % 64 == 0)
  EXPECT_FALSE(lowerFile(f, o).ok);
}

TEST(Lowering, RulesHavePages) {
  for (const auto& rule : lowering::loweringRules()) {
    EXPECT_EQ(std::string(rule.id).rfind("lower.", 0), 0u);
    EXPECT_FALSE(rule.summary.empty());
  }
}

// A 4-warp instance reads a slot at the top of a loop and writes it at the
// bottom: the write needs a sync after the read (same iteration), and the
// read needs one after the previous iteration's write (loop-carried, found
// by the plan stage's fixed point over the loop).
TEST(Lowering, LoopCarriedInstanceSyncs) {
  auto m = compileText("carried.cake", R"(
@cake.schedule(target="sm_90a")
def carried(lm, n: LM.i32):
    lm.assume(n > 0)
    pool = lm.smem(16384)
    s    = pool.view(offset=0, shape=(64, 64), dtype=lm.f32, stages=1)
    x    = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg   = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(s[0], 0.0)
        for t in lm.range(0, n):
            lm.copy(x, s[0])
            lm.copy(s[0], x)
)");
  ASSERT_EQ(m.schedules.size(), 1u);
  auto r = lowering::lowerToCuda(m.schedules[0]);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string marker = "threads of this instance touched these buffers";
  EXPECT_EQ(count(r.source, marker), 2u) << r.source;
  // the first sync is inside the loop, before the read at its top
  const size_t loop = r.source.find("for (int t = 0;");
  const size_t sync = r.source.find(marker);
  ASSERT_NE(loop, std::string::npos);
  EXPECT_LT(loop, sync);
  EXPECT_LT(sync, r.source.find("carried.cake:13", loop));
}

// Thread-block clusters (docs/ir-extensions.md): the multicast TMA load, the
// remote arrive through mapa, barrier.cluster outside an elected-thread
// role's `if (cake_elected)`, the cluster dims, and the derived expect_tx
// that counts the multicast box once per CTA of the mask.
TEST(Lowering, ClusterMulticastGemm) {
  auto r = lowerFile("corpus/cluster/sm90_multicast_b.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.launch.cluster[0], 2);
  EXPECT_TRUE(contains(s, "__cluster_dims__(2, 1, 1)"));
  EXPECT_TRUE(contains(s, "multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;"));
  EXPECT_TRUE(contains(s, "cake_tma_load_2d_mc((smem_bh + 8192 * (cake_slot<4>(((2 * (k % 2)) + "
                          "(static_cast<int>(blockIdx.x) % 2))))), &cake_tmap_B_smem_bh, (full + 8 * (cake_slot<2>(k))), "
                          "static_cast<uint16_t>(3)"));
  // A (8 KiB) + the 8 KiB half of B from each of the 2 CTAs of the mask
  EXPECT_TRUE(contains(s, "cake_mbar_arrive_expect_tx((full + 8 * (cake_slot<2>(k))), 24576);"));
  EXPECT_TRUE(contains(s, "mapa.shared::cluster.u32 rb, %0, %1;"));
  // released at CTA scope (the PTX default): a .release.cluster arrive costs
  // a GPU-scope membar before every slot release (docs/gpu.md)
  EXPECT_TRUE(contains(s, "mbarrier.arrive.shared::cluster.b64 _, [rb], %2;"));
  EXPECT_FALSE(contains(s, "mbarrier.arrive.release.cluster"));
  EXPECT_EQ(count(s, "cake_mbar_arrive_cluster((empty + 8 * (cake_slot<2>(k))), "), 2u);
  // two per role, the elected-thread producer's outside its elected block
  EXPECT_EQ(count(s, "cake_cluster_sync();  //"), 4u);
  EXPECT_TRUE(contains(s, "barrier.cluster.arrive.release;\\nbarrier.cluster.wait.acquire;"));
  // lm.cluster_sync() keeps the load role elected: one thread runs its waits
  // and TMA issue (its full barrier expects 1 arrival, not one per warp)
  const size_t load = s.find("// role 'load'");
  ASSERT_NE(load, std::string::npos);
  EXPECT_TRUE(contains(s.substr(load, 200), "runs on one elected thread per instance")) << s.substr(load, 200);
  EXPECT_TRUE(contains(s, "cake_mbar_init(full + 8 * s, 1);"));
  const size_t sync = s.find("cake_cluster_sync();  //", load);
  const size_t loop = s.find("for (int k = 0;", load);
  ASSERT_LT(sync, loop);
  EXPECT_TRUE(contains(s.substr(sync, loop - sync), "if (cake_elected) {"));
  // not persistent: no residency query
  EXPECT_FALSE(contains(s, "cudaOccupancyMaxActiveClusters"));
}

// A persistent clustered grid is capped at the clusters the GPU holds at once
// (cudaOccupancyMaxActiveClusters), after the #SMs rounded to the cluster.
TEST(Lowering, PersistentClusterGridFitsResidentClusters) {
  auto r = lowerFile("bench/gpu/schedules/sm90_ws_bn256_s4_cluster2.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  const size_t round = s.find("cake_num_sms = cake_max(cake_num_sms / 2 * 2, 2);");
  const size_t query = s.find("cudaOccupancyMaxActiveClusters(&cake_max_clusters, cake_gemm_sm90_ws_bn256_s4_cluster2_kernel");
  const size_t cap = s.find("if (cake_max_clusters > 0) cake_num_sms = cake_min(cake_num_sms, cake_max_clusters * 2);");
  const size_t grid = s.find("dim3 cake_grid(cake_num_sms, 1, 1);");
  ASSERT_NE(round, std::string::npos);
  ASSERT_NE(grid, std::string::npos);
  EXPECT_LT(round, query);
  EXPECT_LT(query, cap);
  EXPECT_LT(cap, grid);
}

TEST(Lowering, ClusterSyncInsideALoopIsRefused) {
  auto m = compileFile("corpus/cluster/sm90_multicast_b.cake");
  ASSERT_FALSE(m.schedules.empty());
  ir::Schedule s = m.schedules[0];
  // move the consumer's first lm.cluster_sync() into its k loop
  for (ir::RoleBody& b : s.bodies) {
    if (s.roles[b.role].name != "math") continue;
    ir::Stmt sync = b.body.front();
    ASSERT_EQ(sync.op.kind, ir::OpKind::ClusterSync);
    b.body.erase(b.body.begin());
    for (ir::Stmt& st : b.body)
      if (st.kind == ir::Stmt::Kind::For) { st.body.insert(st.body.begin(), sync); break; }
  }
  auto r = lowering::lowerToCuda(s, {});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(findingsText(r), "lm.cluster_sync() inside a loop or a branch")) << findingsText(r);
}

// ---- column slices (k-step ranges) of mma.sync operands ------------------

namespace {
const char* kKSliced = "bench/gpu/schedules/sm80/kslice/sm80ks_128x128_k32_s4_j16.cake";

using cake::test::replaceAll;

// The repository file `rel` with every `from` replaced by `to`, compiled and its first schedule
// lowered (a variant of a shipped schedule without a file of its own).
lowering::LowerResult lowerEdited(const std::string& rel, const std::string& from, const std::string& to) {
  std::string err;
  auto f = ir::readSourceFile(sourceDir() + "/" + rel, err);
  EXPECT_TRUE(f) << err;
  if (!f) return {};
  auto m = compileText(rel, replaceAll(std::string(f->text), from, to));
  EXPECT_FALSE(m.schedules.empty());
  if (m.schedules.empty()) return {};
  return lowering::lowerToCuda(m.schedules[0]);
}
}  // namespace

TEST(Lowering, MmaSyncOverKStepSlices) {
  auto r = lowerFile(kKSliced);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  // each lm.mma covers one k-step; the second starts 32 bytes (16 bf16) into the slot's rows
  // (the k-block loop's body is emitted 9 times: 4 copies in the steady pass, 4 in the loop unrolled by
  // the 4 stages and the plain loop for the remaining k-blocks, Lowering.Sm80LoopsUnrollBySlots,
  // Lowering.Sm80SteadyPassTakesGuardsAndInteriorTestsAsTrue)
  EXPECT_EQ(count(s, "for (int cake_k = 0; cake_k < 1; ++cake_k) {"), 2u * 9);
  // (the per-thread offsets of the two slices' k-steps, hoisted to the role's start)
  EXPECT_EQ(count(s, "((2 * 0 + cake_lane / 16) * 16) % 64u)"), 1u);
  EXPECT_EQ(count(s, "((2 * 0 + cake_lane / 16) * 16 + 32) % 64u)"), 1u);
  EXPECT_EQ(count(s, "((2 * 0 + (cake_lane / 8) % 2) * 16 + 32) % 64u)"), 1u);
  EXPECT_TRUE(contains(s, "const uint32_t cake_ao[1] = {cake_ldo2};"));
  // the wait between the slices syncs the block; no other sync in the loop (prologue, mid in each body, end)
  EXPECT_TRUE(contains(s, "cake_cp_async_wait<1>();"));
  EXPECT_EQ(count(s, "__syncthreads();  // the instance is the whole block"), 2u + 9);
}

TEST(Lowering, RefillAfterTheLastKStepSyncsTheReads) {
  // the slot read by the last slice is refilled right after: one more sync orders the block's reads first
  auto r = lowerFile("corpus/bugs/sync.race/sm80_kslice_refill_under_last_kstep_fixed.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  // (per copy of the loop's body: 4 in the steady pass, 4 unrolled by the 4 stages, 1 for the remaining k-blocks)
  EXPECT_EQ(count(r.source, "// threads of this instance touched these buffers since its last sync\n"), 9u);
  EXPECT_EQ(count(r.source, "since its last sync\n            __syncthreads();"), 8u);
  EXPECT_EQ(count(r.source, "since its last sync\n          __syncthreads();"), 1u);
  EXPECT_EQ(count(r.source, "__syncthreads();  // the instance is the whole block"), 2u + 2 * 9);
}

TEST(Lowering, KStepSlicesAreRefusedWhereTheyCannotBeLowered) {
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"target=\"sm_80\"", "target=\"sm_90a\"", "lowered for mma.sync only"},  // a whole warpgroup: wgmma
      {"[:, 0:16]", "[:, 4:20]", "ldmatrix needs a multiple of 16 bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    auto r = lowerEdited(kKSliced, c.from, c.to);
    EXPECT_FALSE(r.ok) << c.to;
    EXPECT_TRUE(contains(findingsText(r), c.message)) << c.to << ": " << findingsText(r);
  }
}

TEST(Lowering, CpAsyncChunkStepsOnlyWhereTheSwizzleRepeats) {
  // one warp over 128-byte rows: a pass of 32 threads is 4 rows = 512 B, half the 128B swizzle's
  // 1024-byte period, so the chunks keep their own row, column and swizzle
  auto r = lowerEdited("bench/gpu/schedules/sm80/sm80_128x128_k64_s3.cake", "warps=[0, 1, 2, 3]", "warps=[0]");
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_FALSE(contains(r.source, "cake_pass"));
  EXPECT_TRUE(contains(r.source, "cake_src + cake_r * cake_ext_A.s[0] + cake_c, 16);"));
  // four warps: 16 rows = 2048 B a pass, two periods
  auto r4 = lowerFile("bench/gpu/schedules/sm80/sm80_128x128_k64_s3.cake");
  ASSERT_TRUE(r4.ok) << findingsText(r4);
  EXPECT_TRUE(contains(r4.source, "cake_cp_async<16>(cake_d + cake_i * 2048u, cake_p + cake_i * cake_cpt0_0_2_pass, 16);"));
  EXPECT_TRUE(contains(r4.source, "const long long cake_cpt0_0_2_pass = 16LL * cake_ext_A.s[0];  // 16 rows a pass"));
  EXPECT_FALSE(contains(r.source, "cake_cpt"));  // nothing to hoist where the chunks keep their own swizzle
}

TEST(Lowering, LdmatrixRowsSplitOnlyWhereTheSwizzleRepeats) {
  // unswizzled slots: no swizzle to hoist, each ldmatrix keeps its own row and column (cake_swz<0>)
  auto r = lowerEdited(kSm80Gemm, ", swizzle=\"64B\"", "");
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_FALSE(contains(r.source, "cake_asw"));
  EXPECT_TRUE(contains(r.source, "cake_ldmatrix_x4(cake_af[i], cake_a + cake_swz<0>(static_cast<uint32_t>((cake_a0 + cake_wrow + 16 * i + "
                                 "cake_lane % 16) * 64 + ((2 * cake_k + cake_lane / 16) * 16))));"));
}

// A guarded element read from global memory (a tensor operand of an element-wise copy: the split-K
// reduce's W into its fragment, A into registers) is one predicated load, not a branch around a plain
// load: cake_ldg_or0 reads nothing out of bounds and gives 0 there, the value `in ? x[i] : 0` gave
// (docs/gpu.md "Branch-free guarded element reads"). The bounds test is the whole one (every
// coordinate against its extent), so a tail row or column still reads 0.
TEST(Lowering, GuardedGlobalElementReadsArePredicatedLoads) {
  auto m = compileFile("bench/gpu/schedules/decode/sm90_decode_splitk_bn64_s12_rg256_pdl.cake");
  ASSERT_EQ(m.schedules.size(), 2u);
  auto r = lowering::lowerToCuda(m.schedules[1], {});  // the reduce: W[s, m, c] element-wise
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_TRUE(contains(s, "__device__ __forceinline__ T cake_ldg_or0(const T* p, bool in)"));
  EXPECT_TRUE(contains(s, "@q ld.global.b32 %0, [%1];"));
  // both reads of W (the first slice, then the others) go through it, with the full bounds test
  EXPECT_EQ(count(s, "cake_f32(cake_ldg_or0(W + (cake_s0_base + (cake_s0_r0 + 0) * cake_ext_W.s[1] + "
                     "(cake_s0_c0 + cake_c)), cake_s0_plane && (cake_s0_c0 + cake_c) >= 0 && (cake_s0_c0 + cake_c) < "
                     "cake_ext_W.d[2] && (cake_s0_r0 + 0) >= 0 && (cake_s0_r0 + 0) < cake_ext_W.d[1]))"),
            2u);
  EXPECT_FALSE(contains(s, ": float(0)"));
  EXPECT_FALSE(contains(s, "? cake_f32(W["));
  // the outer coordinate (the slice s) is in the plane test
  EXPECT_TRUE(contains(s, "cake_s0_plane = true && ("));
}

// ---- mma.sync operand fragments (ldmatrix into the mma registers, lm.mma on two fragments) ----------

namespace {
const char* kFragGemm = "corpus/bugs/sync.race/sm80_frag_next_kblock_before_wait_fixed.cake";
const char* kFragPre = "bench/gpu/schedules/sm80/frag/fragpre_128x128_k64_s3.cake";
const char* kInstSync = "// threads of this instance touched these buffers since its last sync\n";
}  // namespace

TEST(Lowering, Sm80OperandFragments) {
  auto r = lowerFile(kFragGemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  // 128x128 over 2x2 warps: 4 m16 tiles of a, 4 pairs of n8 tiles of b per warp, one k-step a fragment
  EXPECT_TRUE(contains(s, "uint32_t fa0[4][1][4];  // fa0 128x16: mma.sync a-operand layout (warp grid 2x2)"));
  EXPECT_TRUE(contains(s, "uint32_t fb1[4][1][4];  // fb1 128x16: mma.sync b-operand layout (warp grid 2x2)"));
  // each fragment load: ldmatrix.x4 straight into the fragment from this thread's offset (its row bytes XOR
  // its swizzle plus the column: k-step 2 of the slot 64 bytes in, 128B swizzle, 128-byte rows), computed
  // once at the role's start, one per slice column and operand
  EXPECT_TRUE(contains(s, "cake_here((static_cast<uint32_t>((0) + (cake_wwarp / 2) * 64 + cake_lane % 16) * 128u + "
                          "static_cast<uint32_t>(0) * 128u + ((static_cast<uint32_t>((2 * 0 + cake_lane / 16) * 16 + 64) % "
                          "128u) ^ (((static_cast<uint32_t>((0) + (cake_wwarp / 2) * 64 + cake_lane % 16) * 128u) >> 3) & "
                          "112u))));"));
  EXPECT_EQ(count(s, "const uint32_t cake_ldo"), 8u);
  EXPECT_TRUE(contains(s, "cake_ldmatrix_x4(fa0[t][cake_k], cake_s + cake_so[cake_k] + static_cast<uint32_t>(16 * t) * 128u);"));
  EXPECT_FALSE(contains(s, "cake_ssw"));
  EXPECT_TRUE(contains(s, "(cake_wwarp % 2) * 64 + cake_lane % 8 + (cake_lane / 16) * 8) * 128u"));
  // 2 in the prologue, 8 in the k-block, whose body is emitted 7 times (3 in the steady pass, 3 unrolled,
  // 1 for the rest)
  EXPECT_EQ(count(s, "cake_ldmatrix_x4(f"), 2u + 8 * 7);
  // the mmas read the fragments; no ldmatrix of their own
  EXPECT_EQ(count(s, "fa1[i][cake_k], fb1[cake_sj / 2][cake_k][(cake_sj % 2) * 2], fb1[cake_sj / 2][cake_k][(cake_sj % 2) * 2 + "
                     "1]);"),
            2u * 7);
  EXPECT_FALSE(contains(s, "cake_af["));
  // one sync per wait (prologue, k-block in each of its 7 bodies, end), none other
  EXPECT_EQ(count(s, "__syncthreads();  // the instance is the whole block"), 2u + 7);
  EXPECT_FALSE(contains(s, kInstSync));
}

TEST(Lowering, Sm80MmaSyncRunsTheWarpTileSerpentine) {
  // the n8 tiles of each m16 row of the 4 x 8 warp tile: 0..7 on even rows, 7..0 on odd ones, so each row's
  // first mma.sync takes the B registers of the previous row's last (docs/gpu.md "sm_80: serpentine mma order")
  auto r = lowerFile(kFragGemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  const size_t mmas = count(s, "cake_mma_16816_bf16(acc[");
  EXPECT_EQ(mmas, 4u * 7);  // 4 k-steps in each of the k-block's 7 bodies
  EXPECT_EQ(count(s, "{ const int cake_sj = (i % 2) ? 7 - j : j;\n"), mmas);
  EXPECT_EQ(count(s, "cake_mma_16816_bf16(acc[2 * i][2 * cake_sj], acc[2 * i][2 * cake_sj + 1], acc[2 * i + 1][2 * cake_sj], "
                     "acc[2 * i + 1][2 * cake_sj + 1], fa"),
            mmas);
  EXPECT_FALSE(contains(s, "acc[2 * i][2 * j]"));
  EXPECT_FALSE(contains(s, "[j / 2][cake_k]"));
  // the order covers each of the 32 tiles once, and consecutive rows meet on one n8 tile
  std::set<std::pair<int, int>> seen;
  int prev = -1;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      const int sj = (i % 2) ? 7 - j : j;
      EXPECT_TRUE(seen.insert({i, sj}).second);
      if (j == 0 && i > 0) EXPECT_EQ(sj, prev);
      prev = sj;
    }
  EXPECT_EQ(seen.size(), 32u);
  // an mma that loads its own fragments (ldmatrix inside the mma) keeps the row-major order
  auto g = lowerFile(kSm80Gemm);
  ASSERT_TRUE(g.ok) << findingsText(g);
  EXPECT_FALSE(contains(g.source, "cake_sj"));
  EXPECT_TRUE(contains(g.source, "cake_mma_16816_bf16(acc[2 * i][2 * j], "));
}

TEST(Lowering, InstanceSyncsSeeTheSlotsOfThePreviousIteration) {
  // the refill at the top of k-block k writes slot k + 2 = k - 1 (mod 3); the reads before it since the
  // last sync are the previous iteration's read of slot k (its last fragment load, after its wait) and, in
  // the first iteration, the prologue's read of slot 0: no slot in common, no sync before the refill
  auto r = lowerFile(kFragPre);
  ASSERT_TRUE(r.ok) << findingsText(r);
  // (prologue, end, and the wait's in each of the k-block loop's 7 bodies: 3 in the steady pass, 3
  // unrolled, 1 for the rest)
  EXPECT_EQ(count(r.source, "__syncthreads();  // the instance is the whole block"), 2u + 7);
  EXPECT_FALSE(contains(r.source, kInstSync));
  // refilling the slot that the previous iteration's last load read (k + 1 at k, so k at k + 1): a sync
  auto w = lowerEdited(kFragPre, "kn = k + 2", "kn = k");
  ASSERT_TRUE(w.ok) << findingsText(w);
  EXPECT_EQ(count(w.source, kInstSync), 7u);  // one per body
  // a prologue that reads slot 2, which the first iteration refills (slot k + 2 at k = 0; in later
  // iterations slot 2 is no longer pending): a sync
  auto p = lowerEdited(kFragPre, "[0][:, 0:16])", "[2][:, 0:16])");
  ASSERT_TRUE(p.ok) << findingsText(p);
  EXPECT_EQ(count(p.source, kInstSync), 7u);  // one per body
  // a read two iterations back without a sync between (no wait in the k-block): the refill of slot k - 1
  // would meet the read of slot (k - 2) + 1: a sync
  auto n = lowerEdited(kFragPre, "            lm.cp_async_wait(pending=1)\n", "");
  ASSERT_TRUE(n.ok) << findingsText(n);
  EXPECT_GE(count(n.source, kInstSync), 1u);
}

// The zeroing of init=(v == lo) leaves the loop only where it is the first iteration's and nothing in the
// body names the accumulator before the mma; otherwise the mma keeps its branch (cake_keep_branch)
TEST(Lowering, InitZeroingLeavesTheLoopOnlyForTheFirstIteration) {
  // (inside the loop unrolled by the slots' stages: one indentation level more than the plain loop)
  const char* kept = "if ((k == 0)) {\n              cake_keep_branch();";
  auto base = lowerFile(kSm80Gemm);
  ASSERT_TRUE(base.ok) << findingsText(base);
  EXPECT_FALSE(contains(base.source, kept));
  // another iteration's init: the branch stays
  auto other = lowerEdited(kSm80Gemm, "init=(k == 0)", "init=(k == 1)");
  ASSERT_TRUE(other.ok) << findingsText(other);
  EXPECT_TRUE(contains(other.source, "if ((k == 1)) {\n              cake_keep_branch();"));
  EXPECT_FALSE(contains(other.source, "zeroed once here"));
  // a loop that starts elsewhere (its first iteration has k == 1, never k == 0): the branch stays
  auto later = lowerEdited(kSm80Gemm, "for k in lm.range(0, k_tiles):", "for k in lm.range(1, k_tiles):");
  ASSERT_TRUE(later.ok) << findingsText(later);
  EXPECT_TRUE(contains(later.source, kept));
  EXPECT_FALSE(contains(later.source, "zeroed once here"));
  // the accumulator named before the mma in the body (here an mma into it): its zeroing stays in the loop
  auto named = lowerEdited(kFragPre, "            lm.mma(acc, fa0, fb0, init=(k == 0))\n",
                           "            lm.mma(acc, fa0, fb0)\n            lm.mma(acc, fa0, fb0, init=(k == 0))\n");
  ASSERT_TRUE(named.ok) << findingsText(named);
  EXPECT_TRUE(contains(named.source, "if ((k == 0)) {\n"));
  EXPECT_FALSE(contains(named.source, "zeroed once here"));
  auto pre = lowerFile(kFragPre);
  ASSERT_TRUE(pre.ok) << findingsText(pre);
  EXPECT_TRUE(contains(pre.source, "zeroed once here"));
  EXPECT_FALSE(contains(pre.source, "if ((k == 0))"));
}

// The steady pass of an sm_80 slot-unrolled loop (docs/gpu.md "sm_80: a guard-free steady state"): while
// every `if (k + c < hi)` guard holds and every stepped copy is interior (cake_ss_k, its interior test at
// both ends of [0, hi - 3]), the passes run with those guards and tests taken as true: no branch around a
// copy, no guarded element path; then the loop as before, with its guards and tests. A copy whose
// coordinate is not affine in k keeps its test there; no copy to take, no steady pass; other targets keep
// the plain loop.
TEST(Lowering, Sm80SteadyPassTakesGuardsAndInteriorTestsAsTrue) {
  const char* rel = "bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake";
  const std::string guard = "if (((k + 2) < ((K + 64 - 1) / 64))) {",
                    interior = "if (cake_plane && static_cast<unsigned long long>(cake_r0) < ";
  const std::string head = "if (cake_ss_k) for (; cake_kb_k + 5 <= ((K + 64 - 1) / 64); cake_kb_k += 3) {";
  const std::string loop = "for (; cake_kb_k + 3 <= ((K + 64 - 1) / 64); cake_kb_k += 3) {";
  auto r = lowerFile(rel);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  const size_t ss = s.find(head), plain = s.find(loop);
  ASSERT_NE(ss, std::string::npos) << s;
  ASSERT_NE(plain, std::string::npos);
  ASSERT_LT(ss, plain);
  // the predicate: both copies' tests at k = 0 and at k = hi - 3 (the refill of k + 2 reaches the last k-block)
  const size_t at0 = s.find("const int k = 0;  (void)k;"), atEnd = s.find("const int k = (((K + 64 - 1) / 64)) - 3;  (void)k;");
  ASSERT_LT(at0, atEnd);
  ASSERT_LT(atEnd, ss);
  EXPECT_LT(s.find("bool cake_ss_k = true;"), at0);
  const std::string test = "static_cast<unsigned long long>(static_cast<long long>(((k + 2) * 64))) < static_cast<unsigned long long>(cake_cpt";
  EXPECT_EQ(count(s.substr(at0, ss - at0), test), 4u);
  EXPECT_EQ(count(s.substr(at0, ss - at0), "static_cast<unsigned long long>(static_cast<long long>((cake_bx * 128))) < "
                                           "static_cast<unsigned long long>(cake_cpt0_0_2_rl)"), 2u);
  // in the steady pass: 3 copies of the body, each with its 2 refills and the next k-block's fragments
  // unguarded and both copies with no interior test or element path
  const std::string steady = s.substr(ss, plain - ss);
  EXPECT_EQ(count(steady, "const int k = cake_kb_k + "), 3u);
  EXPECT_EQ(count(steady, guard), 0u);
  EXPECT_EQ(count(steady, "if (((k + 1) < ((K + 64 - 1) / 64)))"), 0u);
  EXPECT_EQ(count(steady, "holds in the steady pass"), 9u);
  EXPECT_EQ(count(steady, interior), 0u);
  EXPECT_EQ(count(steady, "int cake_n = 0;"), 0u);
  EXPECT_EQ(count(steady, "{  // interior in every iteration of the steady pass"), 6u);
  EXPECT_EQ(count(steady, "cake_cp_async<16>(cake_d + cake_i * 2048u, cake_p + cake_i * cake_cpt"), 6u);
  // after it, the loop as before: 3 copies and the remainder, each with its guards and tests
  const std::string rest = s.substr(plain);
  EXPECT_EQ(count(rest, guard), 8u);
  EXPECT_EQ(count(rest, interior), 8u);
  // A's column not affine in k: its copies keep their test in the steady pass, B's do not; the predicate
  // tests B only
  auto mod = lowerEdited(rel, "smem_a.cp_async(A, coords=(m_blk, (k + 2) * 64)", "smem_a.cp_async(A, coords=(m_blk, ((k + 2) % 5) * 64)");
  ASSERT_TRUE(mod.ok) << findingsText(mod);
  const size_t mss = mod.source.find(head), mplain = mod.source.find(loop);
  ASSERT_NE(mss, std::string::npos);
  const std::string msteady = mod.source.substr(mss, mplain - mss);
  EXPECT_EQ(count(msteady, interior), 3u);
  EXPECT_EQ(count(msteady, "{  // interior in every iteration of the steady pass"), 3u);
  EXPECT_FALSE(contains(mod.source.substr(0, mss), "cake_cpt0_0_2_rl)"
                                                    " && static_cast<unsigned long long>(static_cast<long long>((((k + 2) % 5)"));
  // neither copy affine: no steady pass
  auto none = lowerEdited(rel, ", (k + 2) * 64)", ", ((k + 2) % 5) * 64)");
  ASSERT_TRUE(none.ok) << findingsText(none);
  EXPECT_FALSE(contains(none.source, "cake_ss_k"));
  EXPECT_TRUE(contains(none.source, loop));
  // the corpus sm_80 GEMM (64B-swizzled 64-byte rows, mma from its slots): a steady pass too
  auto corpus = lowerFile(kSm80Gemm);
  ASSERT_TRUE(corpus.ok) << findingsText(corpus);
  EXPECT_TRUE(contains(corpus.source, "if (cake_ss_k) for (; cake_kb_k + 5 <= ((K + 32 - 1) / 32); cake_kb_k += 3) {"));
  // other targets: no steady pass
  auto h = lowerFile(kSm90Gemm);
  ASSERT_TRUE(h.ok) << findingsText(h);
  EXPECT_FALSE(contains(h.source, "cake_ss_"));
}

TEST(Lowering, BenchPersistentBn256BindsAsBf16Gemm) {
  // bench/gpu/schedules/sm90_ws_bn256_persistent.cake stores C from registers; copied straight from
  // the f32 accumulator, C held f32 and `cake lower` emitted no GEMM ABI (the harness: "kernel
  // library lacks the cake ABI symbols", session 15); converted into a bf16 fragment first, it binds
  const char* rel = "bench/gpu/schedules/sm90_ws_bn256_persistent.cake";
  auto r = lowerFile(rel);
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_EQ(r.problem, lowering::Problem::Gemm);
  EXPECT_TRUE(contains(r.source, "int cake_gemm_launch(const CakeGemmArgs* g, void* stream)"));
  auto f32 = lowerEdited(rel, "            lm.copy(out, acc)\n            lm.copy(C, out,", "            lm.copy(C, acc,");
  ASSERT_TRUE(f32.ok) << findingsText(f32);
  EXPECT_EQ(f32.problem, lowering::Problem::None);
  EXPECT_FALSE(contains(f32.source, "cake_gemm_launch"));
}

// A TMEM fragment of fewer rows than the instance has lanes (64 rows over 4
// warps) is read by the warps that hold its rows, under an `if`. The `if`'s
// comment once trailed its line, and the opening brace after it was
// commented out: the declaration of the TMEM address fell into the `if`
// alone and the kernel did not compile (`cake_taddr` undefined; a real
// bug's fixed form, Mirage split-K linear, found it). Every brace opened is
// closed, and the `if` opens its block.
TEST(Lowering, TmemCopyOfFewerRowsThanLanesOpensItsBlock) {
  auto r = lowerFile("corpus/bugs/sync.tx-imbalance/mirage_splitk_linear_sm100_unclamped_box_fixed.cake");
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_TRUE(contains(r.source, "if (cake_wwarp < 2) {")) << r.source;
  size_t open = 0, close = 0;
  std::istringstream in(r.source);
  for (std::string line; std::getline(in, line);) {
    const std::string code = line.substr(0, line.find("//"));
    open += count(code, "{");
    close += count(code, "}");
  }
  EXPECT_EQ(open, close);
}

// An LM.f32 parameter as lm.binary's scalar (docs/ir-conformance.md): the
// kernel takes it as a float argument and the element-wise loop reads it.
TEST(Lowering, AnF32ParameterIsAKernelArgumentOfBinary) {
  std::string text = test::readText(sourceDir() + "/" + kSm90Gemm);
  const std::string params = "K: LM.i32";
  ASSERT_NE(text.find(params), std::string::npos);
  text.replace(text.find(params), params.size(), "K: LM.i32, scale: LM.f32");
  const std::string epilogue = "        lm.copy(smem_c[lm.instance()], acc)\n";
  ASSERT_NE(text.find(epilogue), std::string::npos);
  text.insert(text.find(epilogue), "        lm.binary(acc, acc, scale, op=\"mul\")\n");
  ir::Module m = compileText("scaled.cake", text);
  ASSERT_FALSE(m.schedules.empty());
  auto r = lowering::lowerToCuda(m.schedules[0], {});
  ASSERT_TRUE(r.ok) << findingsText(r);
  EXPECT_TRUE(contains(r.source, "const float scale)")) << "the kernel argument";
  EXPECT_TRUE(contains(r.source, " * scale))")) << "the product reads it";
}
