// search/dispatch: shards of a declared domain, the generated selector
// (compiled with the host compiler and compared with the in-process
// choice), the generated library (nvcc front end when available).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runner/runner.h"
#include "search/candidates.h"
#include "search/dispatch.h"
#include "tests/common/corpus_files.h"

using namespace cake;
using namespace cake::search;
namespace fs = std::filesystem;

namespace {

using cake::test::sourceDir;

fs::path tempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("cake-dispatch-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

DispatchSpec domainSpec(uint64_t seed) {
  DispatchSpec d;
  d.domain = {{256, 512, 1024, 2048, 4096}, {256, 1024, 4096}, {512, 2048, 8192}};
  d.train = 6;
  d.eval = 5;
  d.seed = seed;
  return d;
}

bool same(const runner::Shape& a, const runner::Shape& b) { return a.M == b.M && a.N == b.N && a.K == b.K; }

}  // namespace

TEST(Dispatch, ShardsAreDeterministicDisjointAndInTheDomain) {
  std::string e;
  auto a = makeShards(domainSpec(7), &e);
  auto b = makeShards(domainSpec(7), &e);
  ASSERT_TRUE(a && b) << e;
  ASSERT_EQ(a->train.size(), 6u);
  ASSERT_EQ(a->eval.size(), 5u);
  std::set<std::tuple<int64_t, int64_t, int64_t>> seen;
  auto in = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  const DispatchSpec d = domainSpec(7);
  for (size_t i = 0; i < a->train.size(); ++i) EXPECT_TRUE(same(a->train[i], b->train[i]));
  for (const auto* list : {&a->train, &a->eval})
    for (const auto& s : *list) {
      EXPECT_TRUE(in(d.domain.M, s.M) && in(d.domain.N, s.N) && in(d.domain.K, s.K));
      EXPECT_TRUE(seen.insert({s.M, s.N, s.K}).second) << "a shape is both training and evaluation (or twice)";
    }
  // the seed decides: another seed, another split
  auto c = makeShards(domainSpec(8), &e);
  bool differs = false;
  for (size_t i = 0; i < c->train.size(); ++i) differs = differs || !same(c->train[i], a->train[i]);
  EXPECT_TRUE(differs);
  DispatchSpec small = domainSpec(1);
  small.train = 40;
  small.eval = 10;   // 50 > 45 shapes
  EXPECT_FALSE(makeShards(small, &e));
  EXPECT_NE(e.find("fewer than"), std::string::npos);
}

TEST(Dispatch, GeneratedSelectorMatchesTheInProcessChoice) {
  if (system("command -v g++ >/dev/null 2>&1") != 0) GTEST_SKIP() << "no g++";
  std::string e;
  auto shards = makeShards(domainSpec(3), &e);
  ASSERT_TRUE(shards) << e;
  std::vector<Winner> winners;
  const char* ids[] = {"BN=128,STAGES=4", "BN=64,STAGES=6", "BN=128,STAGES=4", "BN=256,STAGES=2", "BN=64,STAGES=6",
                       "BN=192,STAGES=3"};
  for (size_t i = 0; i < shards->train.size(); ++i) winners.push_back({ids[i], "", shards->train[i], 1.0});
  std::vector<int> kernel_of_shard;
  std::vector<std::string> kernels;
  const std::string h = selectorHeader(winners, &kernel_of_shard, &kernels);
  ASSERT_EQ(kernels.size(), 4u);   // repeated winners share one kernel
  EXPECT_EQ(kernel_of_shard[0], kernel_of_shard[2]);

  fs::path dir = tempDir("selector");
  std::ofstream(dir / "dispatch_select.h") << h;
  std::vector<runner::Shape> probes = shards->eval;
  for (int64_t m : {1, 100, 3000, 100000})
    for (int64_t k : {64, 5000}) probes.push_back({m, 777, k});
  std::string main_cpp = "#include <stdio.h>\n#include \"dispatch_select.h\"\nint main() {\n";
  for (const auto& p : probes) main_cpp += "  printf(\"%d\\n\", cake_dispatch_select(" + std::to_string(p.M) + ", " +
                                           std::to_string(p.N) + ", " + std::to_string(p.K) + "));\n";
  main_cpp += "  return 0;\n}\n";
  std::ofstream(dir / "main.cpp") << main_cpp;
  int status = 0;
  std::string out = run("g++ -std=c++17 -Wall -Werror -o " + (dir / "sel").string() + " " + (dir / "main.cpp").string() +
                            " -lm 2>&1 && " + (dir / "sel").string(),
                        &status);
  ASSERT_EQ(status, 0) << out;
  std::istringstream lines(out);
  for (const auto& p : probes) {
    int got = -1;
    lines >> got;
    EXPECT_EQ(got, kernel_of_shard[selectShard(shards->train, p)]) << p.M << "x" << p.N << "x" << p.K;
  }
  // a training shard selects its own winner
  for (size_t i = 0; i < shards->train.size(); ++i) EXPECT_EQ(selectShard(shards->train, shards->train[i]), static_cast<int>(i));
  fs::remove_all(dir);
}

TEST(Dispatch, LibraryHoldsEachWinnerOnceBehindTheAbi) {
  fs::path dir = tempDir("library");
  // two concrete GEMMs: the corpus 4-stage kernel and a template candidate
  std::ifstream t(sourceDir() + "/search/examples/gemm_sm90_ws.cake");
  std::stringstream ts;
  ts << t.rdbuf();
  std::string e;
  auto cand = instantiate(ts.str(), "gemm_sm90_ws.cake", "", {{"BN", 64}, {"STAGES", 6}, {"CREGS", 232}}, &e);
  ASSERT_TRUE(cand) << e;
  std::ofstream(dir / "cand.cake") << *cand;
  std::vector<Winner> winners = {{"corpus", sourceDir() + "/corpus/gemm/sm90_ws_4stage.cake", {4096, 4096, 4096}, 1},
                                 {"BN=64", (dir / "cand.cake").string(), {256, 256, 4096}, 1},
                                 {"corpus", sourceDir() + "/corpus/gemm/sm90_ws_4stage.cake", {2048, 4096, 1024}, 1}};
  auto lib = dispatchLibrary(winners, &e);
  ASSERT_TRUE(lib) << e;
  EXPECT_NE(lib->find("namespace cake_k0 {"), std::string::npos);
  EXPECT_NE(lib->find("namespace cake_k1 {"), std::string::npos);
  EXPECT_EQ(lib->find("namespace cake_k2 {"), std::string::npos);
  EXPECT_NE(lib->find("extern \"C\" int cake_gemm_launch(const CakeGemmArgs* g, void* stream)"), std::string::npos);
  EXPECT_NE(lib->find("case 1: return cake_k1::cake_gemm_launch(g, stream);"), std::string::npos);
  EXPECT_EQ(lib->find("cake::"), std::string::npos) << "no runtime dependency on cake";
  // a winner that is not a schedule is an error, not a library
  std::vector<Winner> bad = {{"x", (dir / "missing.cake").string(), {1, 1, 1}, 1}};
  EXPECT_FALSE(dispatchLibrary(bad, &e));

  // nvcc's front end over the whole library (host and device code, no ptxas)
  const std::string nvcc = runner::nvccPath({});
  if (access(nvcc.c_str(), X_OK) != 0) {
    fs::remove_all(dir);
    GTEST_SKIP() << "no nvcc: the library was not compiled";
  }
  std::ofstream(dir / "dispatch.cu") << *lib;
  int status = 0;
  std::string out = run(nvcc + " -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I" + sourceDir() +
                            "/abi -cuda " + (dir / "dispatch.cu").string() + " -o " +
                            (dir / "dispatch.ii").string() + " 2>&1",
                        &status);
  EXPECT_EQ(status, 0) << out;
  fs::remove_all(dir);
}

TEST(Dispatch, GeomeanOverCorrectShardsOnly) {
  std::vector<nlohmann::json> ms = {{{"result", "ok"}, {"median_ms", 1.0}, {"baseline_ms", 2.0}},
                                    {{"result", "ok"}, {"median_ms", 2.0}, {"baseline_ms", 1.0}},
                                    {{"result", "ok"}, {"median_ms", 1.0}, {"baseline_ms", 4.0}},
                                    {{"result", "wrong"}, {"median_ms", 0.1}, {"baseline_ms", 4.0}}};
  auto g = geomeanSpeedup(ms);
  ASSERT_TRUE(g);
  EXPECT_NEAR(*g, std::cbrt(2.0 * 0.5 * 4.0), 1e-12);
  EXPECT_FALSE(geomeanSpeedup({ms[3]}));
}
