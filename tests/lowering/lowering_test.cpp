// lowering/: ir::Schedule -> CUDA C++. No GPU or CUDA toolkit needed (the
// nvcc and GPU tests are in tests/runner).
#include <gtest/gtest.h>

#include <string>

#include "ir/frontend.h"
#include "lowering/lower.h"

using namespace cake;

namespace {

std::string sourceDir() {
  if (const char* e = getenv("CAKE_SOURCE_DIR")) return e;
  return CAKE_SOURCE_DIR;
}

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

lowering::LowerResult lowerFile(const std::string& rel) {
  auto m = compileFile(rel);
  if (m.schedules.empty()) return {};
  return lowering::lowerToCuda(m.schedules[0]);
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
  EXPECT_EQ(r.kernel_name, "cake_gemm_sm90_ws_4stage_kernel");
  EXPECT_EQ(r.launch.threads, 384);
  EXPECT_FALSE(r.launch.persistent);
  EXPECT_EQ(r.launch.grid, "(cake_cdiv(M, 128), cake_cdiv(N, 128), 1)");
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
  EXPECT_TRUE(contains(s, "cake_mbar_arrive_expect_tx((full + 8 * ((k) % 4)), 32768);"));
  // wait(empty, iter=k-4): guarded negative iteration, slot and parity from iter
  EXPECT_TRUE(contains(s, "if ((k - 4) >= 0) {"));
  EXPECT_TRUE(contains(s, "cake_mbar_wait(empty + 8 * (((k - 4)) % 4), (((k - 4)) / 4) & 1);"));
  EXPECT_TRUE(contains(s, "cake_mbar_wait(full + 8 * ((k) % 4), ((k) / 4) & 1);"));
  // TMA: coordinates innermost first, slot from iter=
  EXPECT_TRUE(contains(s, "cake_tma_load_2d((smem_a + 16384 * ((k) % 4)), &cake_tmap_A_smem_a, (full + 8 * ((k) % 4)), "
                          "(k * 64), (static_cast<int>(blockIdx.x) * 128));"));
  // wgmma: m64n128k16, 4 k-steps of 32 B, SBO 1024, 128B swizzle (mode 1); A rows of this instance
  EXPECT_TRUE(contains(s, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
  EXPECT_TRUE(contains(s, "+ ((64 * cake_instance)) * 128;"));
  EXPECT_TRUE(contains(s, "cake_wgmma_desc(cake_a + 0 + cake_k * 32, 1024, 1)"));
  EXPECT_TRUE(contains(s, "cake_wgmma_wait<0>();"));
  // epilogue through the staging slot and a TMA store, with a sync of the instance first
  EXPECT_TRUE(contains(s, "cake_bar_sync(cake_inst_bar, 128);"));
  EXPECT_TRUE(contains(s, "cake_tma_store_2d(&cake_tmap_C_smem_c,"));
  EXPECT_TRUE(contains(s, "cake_tma_store_wait<0>();"));
  // host: tensor maps from the views' boxes and swizzles
  EXPECT_TRUE(contains(s, "cake_encode_2d(&cake_tmap_A_smem_a, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, cake_args->A, M, "
                          "K, cake_args->lda, 128, 64, CU_TENSOR_MAP_SWIZZLE_128B)"));
  EXPECT_TRUE(contains(s, "cake_args->C, M, N, cake_args->ldc, 64, 128, CU_TENSOR_MAP_SWIZZLE_NONE)"));
  EXPECT_TRUE(contains(s, "if (!((K > 0))) return cudaErrorInvalidValue;  // lm.assume(K > 0)"));
}

TEST(Lowering, Deterministic) {
  for (const char* f : {kSm90Gemm, kSm90Persistent, kSm80Gemm}) {
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
  EXPECT_TRUE(contains(r.source, "const dim3 cake_grid(cake_num_sms, 1, 1);"));
  // the global ring index it = t * k_tiles + k drives slot and phase
  EXPECT_TRUE(contains(r.source, "for (int t = 0; t <"));
  EXPECT_TRUE(contains(r.source, "cake_mbar_wait(full + 8 * ((((t * ((K + 64 - 1) / 64)) + k)) % 4), "
                                 "((((t * ((K + 64 - 1) / 64)) + k)) / 4) & 1);"));
  EXPECT_TRUE(contains(r.source, "cake_tma_store_wait<1>();"));
}

TEST(Lowering, Sm80Multistage) {
  auto r = lowerFile(kSm80Gemm);
  ASSERT_TRUE(r.ok) << findingsText(r);
  const std::string& s = r.source;
  EXPECT_EQ(r.target, ir::Target::SM80);
  EXPECT_EQ(r.launch.threads, 128);
  EXPECT_FALSE(contains(s, "wgmma.mma_async.sync"));
  EXPECT_FALSE(contains(s, "setmaxnreg.inc"));
  EXPECT_TRUE(contains(s, "cake_cp_async_16(cake_dst + cake_swz<64>(cake_r * 64 + cake_c * 2),"));
  EXPECT_TRUE(contains(s, "cake_cp_async_wait<1>();"));
  // one role instance = the whole block: the sync after the cp.async wait is __syncthreads
  EXPECT_TRUE(contains(s, "__syncthreads();  // the instance is the whole block"));
  EXPECT_TRUE(contains(s, "cake_mma_16816_bf16(acc[i][j], cake_af[i]"));
  EXPECT_TRUE(contains(s, "float acc[4][8][4];"));
  EXPECT_TRUE(contains(s, "__nv_bfloat16 out[4][8][4];"));
  EXPECT_TRUE(contains(s, "if (cake_r < cake_C_rows && cake_c < cake_C_cols)"));
}

TEST(Lowering, Sm100HasNoBackendYet) {
  auto r = lowerFile("corpus/gemm/sm100_tcgen05_ws.cake");
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "lower.unsupported");
  EXPECT_TRUE(r.source.empty());
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

TEST(Lowering, WgmmaNeedsAWarpgroupInstance) {
  // consumers split into instances of 2 warps: wgmma cannot be issued
  const std::string text = R"(
@cake.schedule(target="sm_90a")
def bad(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
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
  auto m = compileText("bad.cake", text);
  ASSERT_FALSE(m.schedules.empty());
  auto r = lowering::lowerToCuda(m.schedules[0]);
  EXPECT_FALSE(r.ok);
  bool found = false;
  for (const auto& f : r.findings)
    if (f.rule == "lower.layout" && f.message.find("warpgroup") != std::string::npos) found = true;
  EXPECT_TRUE(found) << findingsText(r);
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
)";
  auto m = compileText("two.cake", text);
  ASSERT_FALSE(m.schedules.empty());
  auto r = lowering::lowerToCuda(m.schedules[0]);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "lower.binding");
}

TEST(Lowering, RulesHavePages) {
  for (const auto& rule : lowering::loweringRules()) {
    EXPECT_EQ(std::string(rule.id).rfind("lower.", 0), 0u);
    EXPECT_FALSE(rule.summary.empty());
  }
}
