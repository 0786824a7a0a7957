// runner/: the split-K GEMM binding (`cake run --split-k S`): the partial and
// reduce kernels bound to one shape, the workspace between them, the harness
// arguments; and (with a GPU) the two kernels run and checked against cuBLAS.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/frontend.h"
#include "ir/pdl.h"
#include "runner/runner.h"

using namespace cake;

namespace {

const char* kCorpusPair = "corpus/splitk/sm90_splitk_partials.cake";

std::string readSource(const std::string& rel) {
  const char* e = getenv("CAKE_SOURCE_DIR");
  std::ifstream in(std::string(e ? e : CAKE_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << rel;
  return ss.str();
}

// Both schedules of a split-K file: [0] the partial kernel, [1] the reduce.
std::vector<ir::Schedule> pair(const std::string& text) {
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("splitk.cake", text), {}, sink);
  EXPECT_TRUE(m && m->schedules.size() == 2) << text;
  return m ? m->schedules : std::vector<ir::Schedule>{};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = 0;
  bool any = false;
  while ((at = text.find(from, at)) != std::string::npos) {
    text.replace(at, from.size(), to);
    at += to.size();
    any = true;
  }
  EXPECT_TRUE(any) << from;
  return text;
}

}  // namespace

TEST(RunnerSplitK, BindsThePairAndTheWorkspace) {
  auto s = pair(readSource(kCorpusPair));
  ASSERT_EQ(s.size(), 2u);
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {1, 4096, 4096}, 4);
  ASSERT_EQ(br.result, "ok") << br.detail;
  const runner::SplitKBinding& b = *br.binding;
  // the partial kernel: 128x128 tiles, one K slice per z; W[S, M, N] sizes its grid's z
  EXPECT_EQ(b.partial.grid[0], 1);
  EXPECT_EQ(b.partial.grid[1], 32);
  EXPECT_EQ(b.partial.grid[2], 4);
  // the reduce kernel: 64x128 tiles of C
  EXPECT_EQ(b.reduce.grid[0], 1);
  EXPECT_EQ(b.reduce.grid[1], 32);
  EXPECT_EQ(b.reduce.grid[2], 1);
  const std::vector<std::string> want = {
      "--split", "4", "--m", "1", "--n", "4096", "--k", "4096",
      "--tensor", "A:1,4096", "--tensor", "B:4096,4096", "--tensor", "W:4,1,4096",
      "--i32", "1", "--i32", "4096", "--i32", "4096",
      "--rtensor", "W:4,1,4096", "--rtensor", "C:1,4096", "--ri32", "4"};
  EXPECT_EQ(runner::splitKHarnessArgs(s[0], s[1], b), want);
}

TEST(RunnerSplitK, RolesAreNotInterchangeable) {
  auto s = pair(readSource(kCorpusPair));
  ASSERT_EQ(s.size(), 2u);
  // the reduce kernel has two tensors: it is not a partial kernel (no oracle for it)
  EXPECT_EQ(runner::bindSplitK(s[1], s[0], {64, 4096, 4096}, 2).result, "no_oracle");
  // nor is the partial kernel a reduce kernel
  EXPECT_EQ(runner::bindSplitK(s[0], s[0], {64, 4096, 4096}, 2).result, "no_oracle");
}

// The corpus pair with `from` replaced by `to` binds at 128x256x1024, S = 4,
// to unsupported_shape (before any GPU work) with `kernel` and `where` in the detail.
static void expectUnsupported(const std::string& from, const std::string& to, const std::string& kernel,
                              const std::string& where) {
  auto s = pair(replaced(readSource(kCorpusPair), from, to));
  ASSERT_EQ(s.size(), 2u);
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {128, 256, 1024}, 4);
  EXPECT_EQ(br.result, "unsupported_shape");
  EXPECT_NE(br.detail.find(where), std::string::npos) << br.detail;
  EXPECT_NE(br.detail.find(kernel), std::string::npos) << br.detail;
}

TEST(RunnerSplitK, PartialThatWritesOneSliceIsUnsupported) {
  // every CTA stores into W[0]: the grid has one z and slices 1..S-1 of the
  // workspace would stay poison
  expectUnsupported("coords=(lm.block_idx(2), m_blk + m0, n_blk)", "coords=(0, m_blk + m0, n_blk)", "partial kernel",
                    "only [0, 1) of dimension 0");
}

TEST(RunnerSplitK, ReduceThatSkipsASliceIsUnsupported) {
  expectUnsupported("lm.range(0, S)", "lm.range(0, S - 1)", "reduce kernel", "only [0, 3) of dimension 0");
}

TEST(RunnerSplitK, SplitCountOutOfRange) {
  auto s = pair(readSource(kCorpusPair));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {128, 256, 64}, 0).result, "unsupported_shape");
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {128, 256, 64}, 65).result, "unsupported_shape");
}

TEST(RunnerSplitK, DryRunNeedsNoToolchain) {
  auto s = pair(readSource(kCorpusPair));
  ASSERT_EQ(s.size(), 2u);
  runner::Options o;
  o.nvcc = "/nonexistent/nvcc";
  o.harness = "/nonexistent/harness";
  o.dry_run = true;
  runner::Result r = runner::runSplitK(s[0], s[1], {200, 264, 1000}, 3, o);
  EXPECT_EQ(r.result, "dry_run") << r.detail;
  EXPECT_EQ(r.kernel, "splitk_partial+splitk_reduce");
  EXPECT_NE(r.detail.find("--split 3 --m 200 --n 264 --k 1000 --tensor A:200,1000"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("--rtensor W:3,200,264 --rtensor C:200,264 --ri32 3"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.compiled);
}

// The generated decode pair chained with programmatic dependent launch
// (bench/gpu/schedules/decode/gen.py, "_pdl"): both kernels launch with PDL,
// the reduce names W, so the model checker orders its loads of W after
// lm.grid_dep_wait() and the pair binds.
static const char* const kPdlPair = "bench/gpu/schedules/decode/sm90_decode_splitk_bn64_s12_pdl.cake";

TEST(RunnerSplitK, PdlPairBinds) {
  auto s = pair(readSource(kPdlPair));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(ir::launchesWithPdl(s[0]));
  EXPECT_TRUE(ir::launchesWithPdl(s[1]));
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {1, 4096, 4096}, 2);
  ASSERT_EQ(br.result, "ok") << br.detail;
  EXPECT_EQ(br.binding->partial.grid[2], 2);
  // the plain corpus pair launches in stream order
  auto plain = pair(readSource(kCorpusPair));
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_FALSE(ir::launchesWithPdl(plain[0]));
  EXPECT_FALSE(ir::launchesWithPdl(plain[1]));
}

TEST(RunnerSplitK, PdlReduceThatDoesNotNameTheWorkspaceIsRefused) {
  // without lm.grid_dependency(W) the checker has no tensor to order after the
  // reduce's lm.grid_dep_wait(): its loads of W could overtake the partial's stores
  auto s = pair(replaced(readSource(kPdlPair), "    lm.grid_dependency(W)  # the partial kernel writes W\n", ""));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(ir::launchesWithPdl(s[1]));
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {1, 4096, 4096}, 2);
  EXPECT_EQ(br.result, "unordered_workspace");
  EXPECT_FALSE(br.binding.has_value());
  EXPECT_NE(br.detail.find("sm90_splitk_reduce_bn64_pdl"), std::string::npos) << br.detail;
  EXPECT_NE(br.detail.find("lm.grid_dependency(W)"), std::string::npos) << br.detail;
  // naming another tensor does not order W either
  auto t = pair(replaced(readSource(kPdlPair), "lm.grid_dependency(W)  # the partial kernel writes W",
                         "lm.grid_dependency(C)"));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(runner::bindSplitK(t[0], t[1], {1, 4096, 4096}, 2).result, "unordered_workspace");
}

// The decode pair whose reduce reads W with plain global loads (gen.py, "_rg"):
// one CTA per 256 columns of one row of C, W and C element-wise (LM.gmem).
static const char* const kRgPair = "bench/gpu/schedules/decode/sm90_decode_splitk_bn64_s12_rg256_pdl.cake";

TEST(RunnerSplitK, GlobalLoadReduceBinds) {
  auto s = pair(readSource(kRgPair));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(ir::launchesWithPdl(s[1]));
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {16, 4096, 4096}, 2);
  ASSERT_EQ(br.result, "ok") << br.detail;
  // a row of C per block_idx(0), 256 columns per block_idx(1)
  EXPECT_EQ(br.binding->reduce.grid[0], 16);
  EXPECT_EQ(br.binding->reduce.grid[1], 16);
  EXPECT_EQ(br.binding->reduce.grid[2], 1);
  // partial tiles at the edges of M and N, an empty last K slice
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {200, 264, 1000}, 5).result, "ok");
}

TEST(RunnerSplitK, GlobalLoadReduceThatSkipsASliceIsUnsupported) {
  auto s = pair(replaced(readSource(kRgPair), "lm.range(1, S)", "lm.range(1, S - 1)"));
  ASSERT_EQ(s.size(), 2u);
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {16, 4096, 4096}, 3);
  EXPECT_EQ(br.result, "unsupported_shape") << br.detail;
  EXPECT_NE(br.detail.find("reduce kernel"), std::string::npos) << br.detail;
}

TEST(RunnerSplitK, GlobalLoadReduceThatDoesNotNameTheWorkspaceIsRefused) {
  auto s = pair(replaced(readSource(kRgPair), "    lm.grid_dependency(W)  # the partial kernel writes W\n", ""));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {1, 4096, 4096}, 2).result, "unordered_workspace");
}

// The reduce that loads U = 4 slices of W per iteration before adding them (gen.py
// reduce_global_unrolled, "_rg256u4"): the loads of slices past S are skipped by a guard.
// It binds for S below, at and past U (one iteration, a partial second one, two full ones).
static const char* const kRgU4Pair = "bench/gpu/schedules/decode/sm90_decode_splitk_t16_bn64_s20_rg256u4_pdl.cake";

TEST(RunnerSplitK, UnrolledGlobalLoadReduceBinds) {
  auto s = pair(readSource(kRgU4Pair));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(ir::launchesWithPdl(s[1]));
  for (int64_t split : {1, 2, 3, 4, 5, 8, 9}) {
    runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {16, 4096, 4096}, split);
    ASSERT_EQ(br.result, "ok") << "S = " << split << ": " << br.detail;
    EXPECT_EQ(br.binding->reduce.grid[0], 16);
    EXPECT_EQ(br.binding->reduce.grid[1], 16);
  }
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {200, 264, 1000}, 5).result, "ok");
}

// A guard one slice short (slice s + 3 read only while s + 3 < S - 1) leaves the last
// slice unread whenever S % 4 == 0: refused before any GPU work, as the plain reduce's
// loop that stops one slice early (GlobalLoadReduceThatSkipsASliceIsUnsupported).
TEST(RunnerSplitK, UnrolledReduceWhoseGuardSkipsASliceIsUnsupported) {
  auto s = pair(replaced(readSource(kRgU4Pair), "if s + 3 < S:", "if s + 3 < S - 1:"));
  ASSERT_EQ(s.size(), 2u);
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], {16, 4096, 4096}, 4);
  EXPECT_EQ(br.result, "unsupported_shape") << br.detail;
  EXPECT_NE(br.detail.find("reduce kernel"), std::string::npos) << br.detail;
  // S = 3: the fourth guard is false either way, every slice read
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {16, 4096, 4096}, 3).result, "ok");
}

// ---- with a GPU (skipped elsewhere; CI has none)

// Lowers, compiles and runs the pair of `file` at 200x264x1000, S = 5 (partial
// tiles at the edges of M, N and K; an empty last slice: 16 k-blocks over 5
// slices of 4), C checked against cuBLAS before and after the timed runs.
static void expectPairRunsCorrect(const char* file, const std::string& tag) {
  if (!runner::gpuAvailable()) GTEST_SKIP() << "no GPU";
  const std::string nvcc = runner::nvccPath({});
  if (nvcc.find('/') != std::string::npos ? access(nvcc.c_str(), X_OK) != 0
                                          : system("command -v nvcc >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no nvcc";
  auto s = pair(readSource(file));
  ASSERT_EQ(s.size(), 2u);
  runner::Options o;
  o.runs = 5;
  o.work_dir = (std::filesystem::temp_directory_path() / ("cake-" + tag + "-" + std::to_string(getpid()))).string();
  runner::Result r = runner::runSplitK(s[0], s[1], {200, 264, 1000}, 5, o);
  EXPECT_EQ(r.result, "ok") << r.detail;
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.harness.value("kernels_per_run", 0), 2) << r.harness.dump();
  std::filesystem::remove_all(o.work_dir);
}

TEST(RunnerGpu, SplitKGemmIsCorrect) { expectPairRunsCorrect(kCorpusPair, "splitk"); }

// The PDL-chained decode pair: both kernels on the harness's stream, the
// reduce grid launched before the partial grid ends.
TEST(RunnerGpu, SplitKPdlGemmIsCorrect) { expectPairRunsCorrect(kPdlPair, "splitk-pdl"); }

// The same with the reduce that reads W with plain global loads.
TEST(RunnerGpu, SplitKPdlGlobalLoadReduceIsCorrect) { expectPairRunsCorrect(kRgPair, "splitk-rg"); }

// Binds `file`'s pair at `shape`, S = 2, expects the partial grid {gx, gy, 2}
// and the reduce grid's x and y; then binds it at the edge shape (partial
// tiles in M and N, an empty last K slice).
static void expectDecodePairGrids(const char* file, const runner::Shape& shape, int64_t gy, int64_t rx, int64_t ry) {
  auto s = pair(readSource(file));
  ASSERT_EQ(s.size(), 2u);
  runner::SplitKBindResult br = runner::bindSplitK(s[0], s[1], shape, 2);
  ASSERT_EQ(br.result, "ok") << br.detail;
  EXPECT_EQ(br.binding->partial.grid[0], 1);
  EXPECT_EQ(br.binding->partial.grid[1], gy);
  EXPECT_EQ(br.binding->partial.grid[2], 2);
  EXPECT_EQ(br.binding->reduce.grid[0], rx);
  EXPECT_EQ(br.binding->reduce.grid[1], ry);
  EXPECT_EQ(runner::bindSplitK(s[0], s[1], {200, 264, 1000}, 5).result, "ok");
}

// A partial kernel whose A operand is a register fragment read element-wise
// from global memory (gen.py "_ar_": A is LM.gmem, B still a TMA ring) binds
// to the same contract as the TMA partials: one K slice per block_idx(2).
TEST(RunnerSplitK, RegisterAPartialBinds) {
  expectDecodePairGrids("bench/gpu/schedules/decode/sm90_decode_splitk_ar_bn64_s24_rg256_pdl.cake", {1, 4096, 4096},
                        64, 1, 16);
}

// A 16-row partial tile whose mma is the transposed wgmma (docs/ir-extensions.md
// "Transposed wgmma": B's 128 rows on the wgmma's M side) binds to the same
// contract: at M = 16 one row of tiles, N / 128 columns of them.
TEST(RunnerSplitK, TransposedWgmmaPartialBinds) {
  expectDecodePairGrids("bench/gpu/schedules/decode/sm90_decode_splitk_t16_bn128_s12_rg256_pdl.cake",
                        {16, 4096, 4096}, 32, 16, 16);
}

// A transposed partial in a (1, 2, 1) cluster (gen.py "_c2": the two CTAs of a
// cluster each load half of the shared A k-block, multicast to both) binds to
// the same contract: the cluster does not change the grid the binding derives
// (the lowering's host code rounds it up to whole clusters).
TEST(RunnerSplitK, ClusterMulticastPartialBinds) {
  expectDecodePairGrids("bench/gpu/schedules/decode/sm90_decode_splitk_t16_bn64_s5_c2_rg1024_pdl.cake",
                        {16, 4096, 4096}, 64, 16, 4);
}

// The 128-row partial tile (two warpgroups on its m64 halves) with a reduce of
// 4,096 columns of one row per CTA: at M = 128, N = 4096 one reduce CTA per row.
TEST(RunnerSplitK, RowPartialAndWholeRowReduceBind) {
  expectDecodePairGrids("bench/gpu/schedules/decode/sm90_decode_splitk_m128_bn64_s8_rg4096_pdl.cake",
                        {128, 4096, 4096}, 64, 128, 1);
}
