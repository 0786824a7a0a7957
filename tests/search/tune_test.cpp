// search/: the tune spec, candidate generation, dedupe by lowered code,
// gating, ranking, results JSONL and resume, batches, routing and the
// ablation table. No GPU: measurements are supplied as runner records.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ir/frontend.h"
#include "search/ablate.h"
#include "search/batch.h"
#include "search/candidates.h"
#include "search/route.h"
#include "search/spec.h"
#include "search/tune.h"
#include "tests/common/corpus_files.h"

using namespace cake;
using namespace cake::search;
namespace fs = std::filesystem;

namespace {

using cake::test::sourceDir;

// A row reduction whose tile height BM is a choice; PAD is a choice the code
// never uses (so its values lower to the same code: duplicates).
const char* kTemplate = R"(# a tunable row sum
@cake.schedule(target="sm_90a")
def rowsum(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32, PAD: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM % 8 == 0)
    lm.assume(PAD >= 0)
    pool   = lm.smem(8 * BM * 128)
    smem_x = pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=8, swizzle="128B")
    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)
    part   = lm.regs(shape=(BM, 1), dtype=lm.f32)
    total  = lm.regs(shape=(BM, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=8)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * BM

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 8)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
)";

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("cake-search-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

std::map<std::string, Record> byId(const std::vector<Record>& rs) {
  std::map<std::string, Record> m;
  for (const Record& r : rs) m[r.id] = r;
  return m;
}

// Predicts from the pool size: bigger tiles "faster" (a stand-in estimator:
// what is tested is that the ranking follows the predictions).
Estimator poolEstimator(std::atomic<int>* calls) {
  return [calls](const ir::Schedule& s, const Workload&) -> std::optional<Prediction> {
    ++*calls;
    auto bytes = ir::constValue(s.pools.at(0).bytes);
    if (!bytes) return std::nullopt;
    return Prediction{1e6 / static_cast<double>(*bytes), "test"};
  };
}

TuneOptions rowsumOptions(const TempDir& d, std::vector<Choice> choices) {
  TuneOptions o;
  o.spec.template_path = d.file("rowsum.cake", kTemplate);
  o.spec.choices = std::move(choices);
  o.run_dir = (d.path / "run").string();
  o.jobs = 2;
  return o;
}

}  // namespace

// ------------------------------------------------------------------ spec

TEST(TuneSpec, ValueSyntax) {
  std::string e;
  EXPECT_EQ(parseValues("64,128,256", &e), (std::vector<int64_t>{64, 128, 256}));
  EXPECT_EQ(parseValues("2..5", &e), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(parseValues("64..256:64", &e), (std::vector<int64_t>{64, 128, 192, 256}));
  EXPECT_EQ(parseValues("32..256*2", &e), (std::vector<int64_t>{32, 64, 128, 256}));
  EXPECT_EQ(parseValues("8,2..3,8", &e), (std::vector<int64_t>{2, 3, 8}));   // sorted, no repeats
  for (const char* bad : {"", "x", "5..2", "1..9:0", "0..64*2", "4..64*1", "1..100000000", "1,,2"}) {
    e.clear();
    EXPECT_FALSE(parseValues(bad, &e)) << bad;
    EXPECT_FALSE(e.empty()) << bad;
  }
  auto c = parseChoice("BN=64..128:64", &e);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "BN");
  EXPECT_EQ(c->values, (std::vector<int64_t>{64, 128}));
  EXPECT_FALSE(parseChoice("=4", &e));
}

TEST(TuneSpec, FromJson) {
  std::string e;
  auto s = specFromJson(nlohmann::json::parse(R"({"template": "t.cake", "params": {"BN": "64,128", "S": [2, "4..5"]},
      "workload": {"shape": "M=256,N=512,K=1024"}, "top_k": 3})"), "/base", &e);
  ASSERT_TRUE(s) << e;
  EXPECT_EQ(s->template_path, "/base/t.cake");
  ASSERT_EQ(s->choices.size(), 2u);
  EXPECT_EQ(s->choices[1].values, (std::vector<int64_t>{2, 4, 5}));
  EXPECT_EQ(s->workload.shape.at("N"), 512);
  EXPECT_EQ(s->workload.kind(), "gemm");
  EXPECT_EQ(s->top_k, 3);
  EXPECT_FALSE(specFromJson(nlohmann::json::parse(R"({"template": "t.cake"})"), "", &e));   // no choices
  EXPECT_FALSE(specFromJson(nlohmann::json::parse(R"({"template": "t.cake", "params": {"A": "1"}, "topk": 2})"), "", &e));
  EXPECT_NE(e.find("topk"), std::string::npos);
  EXPECT_FALSE(specFromJson(nlohmann::json::parse(R"({"template": "t.cake", "params": {"A": "1"},
      "workload": {"kind": "attention"}})"), "", &e));
  EXPECT_NE(e.find("expected one of"), std::string::npos) << e;
  // any workload contract, with its own sizes
  auto rs = specFromJson(nlohmann::json::parse(R"({"template": "t.cake", "params": {"A": "1"},
      "workload": {"kind": "row-sum", "shape": "M=256,N=512"}})"), "", &e);
  ASSERT_TRUE(rs) << e;
  EXPECT_EQ(rs->workload.kind(), "row-sum");
  EXPECT_EQ(rs->workload.shape.at("M"), 256);
  EXPECT_FALSE(specFromJson(nlohmann::json::parse(R"({"template": "t.cake", "params": {"A": "1"},
      "workload": {"kind": "row-sum"}})"), "", &e));   // a non-GEMM contract names its sizes
}

// ------------------------------------------------------------ candidates

TEST(TuneCandidates, InstantiateBindsChoicesAsConstants) {
  std::string e;
  auto text = instantiate(kTemplate, "t.cake", "", {{"BM", 64}, {"PAD", 0}}, &e);
  ASSERT_TRUE(text) << e;
  EXPECT_NE(text->find("def rowsum(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):"), std::string::npos) << *text;
  EXPECT_NE(text->find("    BM = 64  # tune choice\n    PAD = 0  # tune choice\n    lm.assume(D > 0)"), std::string::npos);
  // the candidate is a standalone schedule whose pool size is now a constant
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("c.cake", *text), {}, sink);
  ASSERT_TRUE(m);
  EXPECT_EQ(ir::constValue(m->schedules[0].pools[0].bytes), 8 * 64 * 128);
  EXPECT_EQ(m->schedules[0].params.size(), 3u);

  EXPECT_FALSE(instantiate(kTemplate, "t.cake", "", {{"X", 1}}, &e));   // a tensor, not LM.i32
  EXPECT_NE(e.find("'X' is not an LM.i32 parameter"), std::string::npos);
  EXPECT_FALSE(instantiate(kTemplate, "t.cake", "", {{"lm", 1}}, &e));
  EXPECT_FALSE(instantiate(kTemplate, "t.cake", "other", {{"BM", 1}}, &e));
  EXPECT_FALSE(instantiate("def (", "t.cake", "", {{"BM", 1}}, &e));
}

TEST(TuneCandidates, GridOrderLastChoiceFastest) {
  std::string e;
  auto g = enumerateGrid(kTemplate, "t.cake", "", {{"BM", {64, 128}}, {"PAD", {0, 1, 2}}}, &e);
  ASSERT_TRUE(g) << e;
  ASSERT_EQ(g->size(), 6u);
  EXPECT_EQ((*g)[0].id, "BM=64,PAD=0");
  EXPECT_EQ((*g)[1].id, "BM=64,PAD=1");
  EXPECT_EQ((*g)[3].id, "BM=128,PAD=0");
  EXPECT_EQ((*g)[5].origin, "grid");
  EXPECT_FALSE(enumerateGrid(kTemplate, "t.cake", "", {{"BM", {}}}, &e));
}

TEST(TuneCandidates, MutantsOfAnAcceptedSchedule) {
  const std::string path = sourceDir() + "/corpus/gemm/sm90_ws_4stage.cake";
  std::string e;
  auto ms = enumerateMutants(path, cake::test::readText(path), &e);
  ASSERT_TRUE(ms) << e;
  ASSERT_GT(ms->size(), 5u);
  for (const Candidate& c : *ms) {
    EXPECT_EQ(c.origin, "mutant");
    EXPECT_EQ(c.id.rfind("mutant:", 0), 0u);
    EXPECT_FALSE(c.mutation.empty());
  }
  // a known-bad file has no clear label: not a mutation source
  const std::string bad = sourceDir() + "/corpus/bugs/sync.deadlock/sm80_ws_unprimed_empty.cake";
  EXPECT_FALSE(enumerateMutants(bad, cake::test::readText(bad), &e));
}

// ------------------------------------------------ gate, dedupe, rank, resume

TEST(TuneGate, VerdictsDedupeRanksAndResume) {
  TempDir d;
  std::atomic<int> calls{0};
  TuneOptions o = rowsumOptions(d, {{"BM", {60, 64, 128, 256}}, {"PAD", {0, 1}}});
  o.estimator = poolEstimator(&calls);
  std::string e;
  auto rs = gateAndRank(o, &e);
  ASSERT_TRUE(rs) << e;
  ASSERT_EQ(rs->size(), 8u);
  auto m = byId(*rs);
  // lm.assume(BM % 8 == 0) over the choices alone rules 60 out before any check
  EXPECT_EQ(m["BM=60,PAD=0"].verdict, "excluded");
  EXPECT_NE(m["BM=60,PAD=0"].detail.find("lm.assume(BM % 8 == 0)"), std::string::npos);
  // 8 x 256 x 128 bytes is over sm_90a's per-block limit: the gate says which rule
  EXPECT_EQ(m["BM=256,PAD=0"].verdict, "rejected");
  EXPECT_EQ(m["BM=256,PAD=0"].rule, "layout.smem-limit");
  EXPECT_EQ(m["BM=64,PAD=0"].verdict, "verified");
  EXPECT_EQ(m["BM=128,PAD=0"].verdict, "verified");
  // PAD never reaches the code: same lowered code, recorded as a duplicate of the first
  for (const char* id : {"BM=64,PAD=1", "BM=128,PAD=1"}) {
    EXPECT_EQ(m[id].verdict, "duplicate") << id;
    EXPECT_EQ(m[id].code_hash, m[std::string(id).replace(std::string(id).find("PAD=1"), 5, "PAD=0")].code_hash);
  }
  EXPECT_EQ(m["BM=64,PAD=1"].detail, "BM=64,PAD=0");
  // a candidate that does not lower has no code to compare: it is checked on its own
  EXPECT_EQ(m["BM=256,PAD=1"].verdict, "rejected");
  // only verified candidates are predicted, and ranked by the prediction
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(m["BM=128,PAD=0"].rank, 1);
  EXPECT_EQ(m["BM=64,PAD=0"].rank, 2);
  EXPECT_EQ(m["BM=256,PAD=0"].rank, 0);
  EXPECT_FALSE(m["BM=256,PAD=0"].prediction);
  EXPECT_TRUE(fs::exists(m["BM=64,PAD=0"].source_path));

  // resume: nothing is checked or predicted again, the records are the same
  auto again = gateAndRank(o, &e);
  ASSERT_TRUE(again) << e;
  EXPECT_EQ(calls.load(), 2);
  for (size_t i = 0; i < rs->size(); ++i) EXPECT_EQ(toJson((*again)[i]), toJson((*rs)[i]));

  // a grown grid checks only the new point
  o.spec.choices[0].values.push_back(32);
  auto grown = gateAndRank(o, &e);
  ASSERT_TRUE(grown) << e;
  EXPECT_EQ(grown->size(), 10u);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(byId(*grown)["BM=32,PAD=0"].rank, 3);
}

TEST(TuneGate, NoEstimatorRanksInEnumerationOrder) {
  TempDir d;
  TuneOptions o = rowsumOptions(d, {{"BM", {128, 64}}, {"PAD", {0}}});
  std::string e;
  auto rs = gateAndRank(o, &e);
  ASSERT_TRUE(rs) << e;
  auto m = byId(*rs);
  EXPECT_EQ(m["BM=128,PAD=0"].rank, 1);   // the grid's order
  EXPECT_EQ(m["BM=64,PAD=0"].rank, 2);
  EXPECT_FALSE(m["BM=64,PAD=0"].prediction);
}

TEST(TuneGate, BadTemplateIsAnErrorNotACrash) {
  TempDir d;
  TuneOptions o = rowsumOptions(d, {{"NOPE", {1}}});
  std::string e;
  EXPECT_FALSE(gateAndRank(o, &e));
  EXPECT_NE(e.find("'NOPE' is not an LM.i32 parameter"), std::string::npos);
  o.spec.template_path = (d.path / "missing.cake").string();
  EXPECT_FALSE(gateAndRank(o, &e));
  EXPECT_NE(e.find("cannot read"), std::string::npos);
}

// ----------------------------------------------------------------- JSONL

TEST(TuneRecords, RoundTripAndBadLines) {
  TempDir d;
  Record r;
  r.id = "BN=64";
  r.origin = "grid";
  r.params = {{"BN", 64}};
  r.verdict = "verified";
  r.prediction = Prediction{0.5, "tensor core"};
  r.rank = 1;
  r.measurement = {{"result", "ok"}, {"median_ms", 0.6}};
  r.gpu_wall_s = 1.5;
  Record q;
  q.id = "BN=512";
  q.verdict = "rejected";
  q.rule = "layout.smem-limit";
  const std::string path = (d.path / "r.jsonl").string();
  std::string e;
  ASSERT_TRUE(writeRecords(path, {r, q}, &e)) << e;
  auto back = readRecords(path, &e);
  ASSERT_TRUE(back) << e;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(toJson((*back)[0]), toJson(r));
  EXPECT_EQ(toJson((*back)[1]), toJson(q));
  EXPECT_EQ((*back)[0].measuredMs(), 0.6);
  EXPECT_FALSE((*back)[1].measured());
  // a missing file is an empty run; a bad line is an error naming the line
  EXPECT_TRUE(readRecords((d.path / "none.jsonl").string(), &e)->empty());
  std::ofstream(path, std::ios::app) << "{\"id\": 3}\n";
  EXPECT_FALSE(readRecords(path, &e));
  EXPECT_NE(e.find(":3:"), std::string::npos) << e;
}

// ------------------------------------------------------- selection, batch

namespace {
Record verified(const std::string& id, int rank, std::optional<double> pred = std::nullopt) {
  Record r;
  r.id = id;
  r.origin = "grid";
  r.verdict = "verified";
  r.rank = rank;
  if (pred) r.prediction = Prediction{*pred, "test"};
  return r;
}
nlohmann::json ok(double ms) { return {{"result", "ok"}, {"correct", true}, {"median_ms", ms}, {"baseline_ms", 1.0}}; }
}  // namespace

TEST(TuneMeasure, SelectsBaselineThenTopKUnmeasured) {
  std::vector<Record> rs = {verified("c", 3), verified("a", 1), verified("b", 2), verified("d", 4)};
  Record base = verified("baseline", 0);
  base.origin = "baseline";
  rs.push_back(base);
  Record bad;
  bad.id = "x";
  bad.verdict = "rejected";
  rs.push_back(bad);
  auto sel = selectForMeasurement(rs, 3, 100);
  ASSERT_EQ(sel.size(), 4u);
  EXPECT_EQ(rs[sel[0]].id, "baseline");
  EXPECT_EQ(rs[sel[1]].id, "a");
  EXPECT_EQ(rs[sel[3]].id, "c");
  rs[1].measurement = ok(1);   // "a" measured: not again
  sel = selectForMeasurement(rs, 3, 2);
  ASSERT_EQ(sel.size(), 2u);   // the batch limit
  EXPECT_EQ(rs[sel[1]].id, "b");
  EXPECT_EQ(selectForMeasurement(rs, 0, 100).size(), 4u);           // 0: every verified one
  EXPECT_EQ(selectForMeasurement(rs, 0, 100, true).size(), 5u);     // ungated: the rejected one too
}

TEST(TuneMeasure, BatchEmitAndIngest) {
  TempDir d;
  TuneOptions o;
  o.spec.baseline = sourceDir() + "/corpus/gemm/sm90_ws_4stage.cake";
  o.spec.mutate = {};
  o.spec.template_path = d.file("rowsum.cake", kTemplate);
  o.spec.choices = {{"BM", {64}}, {"PAD", {0}}};
  o.spec.workload.shape = gemmShape({256, 256, 512});
  o.run_dir = (d.path / "run").string();
  std::string e;
  auto rs = gateAndRank(o, &e);
  ASSERT_TRUE(rs) << e;
  ASSERT_EQ((*rs)[0].id, "baseline");
  ASSERT_EQ((*rs)[0].verdict, "verified");
  auto sel = selectForMeasurement(*rs, 0, 10);
  ASSERT_EQ(sel.size(), 2u);
  const std::string batch = (d.path / "batch").string();
  auto stats = emitBatch(*rs, sel, o.spec, batch, &e);
  ASSERT_TRUE(stats) << e;
  // the GEMM binds to the gemm contract; the row sum does not and is recorded at once
  EXPECT_EQ(stats->written, 1);
  EXPECT_EQ(stats->not_runnable, 1);
  EXPECT_NE(byId(*rs)["BM=64,PAD=0"].result(), "");
  EXPECT_FALSE(byId(*rs)["BM=64,PAD=0"].measuredMs());
  auto manifest = nlohmann::json::parse(cake::test::readText(batch + "/manifest.json"));
  EXPECT_EQ(manifest["workload"]["shape"], "M=256,N=256,K=512");
  ASSERT_EQ(manifest["items"].size(), 1u);
  EXPECT_EQ(manifest["items"][0]["id"], "baseline");
  EXPECT_TRUE(fs::exists(batch + "/" + manifest["items"][0]["cake"].get<std::string>()));
  EXPECT_NE(cake::test::readText(batch + "/" + manifest["items"][0]["cu"].get<std::string>()).find("cake_gemm_launch"),
            std::string::npos);

  // what the device writes, merged back by id
  std::ofstream(batch + "/results.jsonl") << nlohmann::json{{"id", "baseline"}, {"gpu_wall_s", 2.5}, {"measurement", ok(0.25)}}.dump() << "\n";
  auto n = ingest(*rs, batch + "/results.jsonl", &e);
  ASSERT_TRUE(n) << e;
  EXPECT_EQ(*n, 1);
  EXPECT_EQ((*rs)[0].measuredMs(), 0.25);
  EXPECT_EQ((*rs)[0].gpu_wall_s, 2.5);
  std::ofstream(batch + "/results.jsonl", std::ios::app) << nlohmann::json{{"id", "ghost"}, {"measurement", ok(1)}}.dump() << "\n";
  EXPECT_FALSE(ingest(*rs, batch + "/results.jsonl", &e));
  EXPECT_NE(e.find("'ghost' is not in this run"), std::string::npos);
  // without a GPU a batch still records every item (the runner says no_gpu), and resumes
  ::setenv("CAKE_NO_GPU", "1", 1);
  fs::remove(batch + "/results.jsonl");
  std::ofstream(batch + "/results.jsonl") << nlohmann::json{{"id", "baseline"}, {"measurement", ok(0.25)}}.dump() << "\n";
  RunBatchOptions ro;
  auto ran = runBatch(batch, ro, &e);
  ::unsetenv("CAKE_NO_GPU");
  ASSERT_TRUE(ran) << e;
  EXPECT_EQ(*ran, 0);   // the one item already has a result
}

TEST(TuneMeasure, CompileKeyIgnoresCommentLinesOnly) {
  const std::string a = "// from run-a/x.cake\n__global__ void k() {}\n  // run-a/x.cake:3 lm.wait\nint x = 1;\n";
  const std::string b = "// from run-b/x.cake\n__global__ void k() {}\n  // run-b/x.cake:3 lm.wait\nint x = 1;\n";
  EXPECT_EQ(compileKey(a, "sm_90a"), compileKey(b, "sm_90a"));
  EXPECT_NE(compileKey(a, "sm_90a"), compileKey(a, "sm_80"));
  EXPECT_NE(compileKey(a, "sm_90a"), compileKey("// from run-a/x.cake\n__global__ void k() {}\nint x = 2;\n", "sm_90a"));
  EXPECT_NE(compileKey("int y = 0;  // trailing\nint x;\n", "t"), compileKey("int y = 1;  // trailing\nint x;\n", "t"));
  // a comment ending in a backslash comments out the next line too: kept in the key
  EXPECT_NE(compileKey("// a \\\nint x;\n", "t"), compileKey("int x;\n", "t"));
}

TEST(TuneMeasure, BatchesShareOneCompileAndMeasureInOrder) {
  TempDir d;
  // two batches of one kernel (lowered from two run folders: only the comments differ)
  auto batch = [&](const std::string& name, const std::string& comment, const std::string& shape) {
    const fs::path dir = d.path / name;
    fs::create_directories(dir / "cu");
    std::ofstream(dir / "cu/k.cu") << "// " << comment << "\nthis is not CUDA: nvcc would fail\n";
    nlohmann::json items = nlohmann::json::array();
    items.push_back({{"id", "k"}, {"cu", "cu/k.cu"}, {"target", "sm_90a"}, {"verified", true}});
    std::ofstream(dir / "manifest.json")
        << nlohmann::json{{"workload", {{"kind", "gemm"}, {"shape", shape}}}, {"runs", 3}, {"items", items}}.dump();
    return dir.string();
  };
  const std::string b1 = batch("b1", "run-1/k.cake", "M=256,N=256,K=256");
  const std::string b2 = batch("b2", "run-2/k.cake", "M=512,N=512,K=512");
  const std::string cache = (d.path / "cache").string();
  fs::create_directories(cache);
  // a library already in the cache under the kernel's key is not compiled again
  std::ofstream(fs::path(cache) / (compileKey(cake::test::readText(b1 + "/cu/k.cu"), "sm_90a") + ".so")) << "built";
  ::setenv("CAKE_NO_GPU", "1", 1);
  RunBatchOptions ro;
  ro.so_cache = cache;
  std::string e;
  auto n = runBatches({b1, b2}, ro, &e);
  ::unsetenv("CAKE_NO_GPU");
  ASSERT_TRUE(n) << e;
  EXPECT_EQ(*n, 2);
  for (const std::string& b : {b1, b2}) {
    auto line = nlohmann::json::parse(cake::test::readText(b + "/results.jsonl"));
    EXPECT_EQ(line["id"], "k");
    EXPECT_EQ(line["measurement"]["result"], "no_gpu") << line.dump();   // not compile_error: the cache served it
  }
  EXPECT_EQ(nlohmann::json::parse(cake::test::readText(b2 + "/results.jsonl"))["measurement"]["shape"]["M"], 512);
  // compile-only records nothing; a bad manifest among the batches is an error before any work
  ro.compile_only = true;
  fs::remove(b1 + "/results.jsonl");
  auto c = runBatches({b1}, ro, &e);
  ASSERT_TRUE(c) << e;
  EXPECT_EQ(*c, 1);
  EXPECT_FALSE(fs::exists(b1 + "/results.jsonl"));
  EXPECT_FALSE(runBatches({b1, (d.path / "nothing").string()}, ro, &e));
  EXPECT_NE(e.find("nothing/manifest.json"), std::string::npos) << e;
}

TEST(TuneMeasure, OtherContractsBindThroughTheWorkload) {
  TempDir d;
  TuneOptions o = rowsumOptions(d, {{"BM", {64}}, {"PAD", {0}}});
  std::string e;
  auto shape = workload::parseShape(workload::Kind::RowSum, "M=1024,N=512", &e);
  ASSERT_TRUE(shape) << e;
  o.spec.workload.shape = *shape;
  auto rs = gateAndRank(o, &e);
  ASSERT_TRUE(rs) << e;
  ASSERT_EQ((*rs)[0].verdict, "verified");
  const std::string batch = (d.path / "batch").string();
  auto stats = emitBatch(*rs, selectForMeasurement(*rs, 0, 10), o.spec, batch, &e);
  ASSERT_TRUE(stats) << e;
  EXPECT_EQ(stats->written, 1) << (*rs)[0].measurement.dump();
  auto manifest = nlohmann::json::parse(cake::test::readText(batch + "/manifest.json"));
  EXPECT_EQ(manifest["workload"]["kind"], "row-sum");
  EXPECT_EQ(manifest["workload"]["shape"], "M=1024,N=512");
  // the generic launcher, not the GEMM ABI
  const std::string cu = cake::test::readText(batch + "/" + manifest["items"][0]["cu"].get<std::string>());
  EXPECT_NE(cu.find("cake_launch"), std::string::npos);
  EXPECT_EQ(cu.find("cake_gemm_launch"), std::string::npos);
}

// ---------------------------------------------------------------- routing

TEST(TuneRoute, FindingsGoWhereTheyTeach) {
  TempDir d;
  TuneSpec spec;
  spec.calibration_error = 0.25;
  std::vector<Record> rs;
  auto add = [&](Record r, nlohmann::json m) {
    r.source_path = d.file(r.id + ".cake", "@cake.schedule(target=\"sm_90a\")\ndef k(lm):\n    pass\n");
    r.measurement = std::move(m);
    r.gpu_wall_s = 1;
    rs.push_back(r);
  };
  Record base = verified("baseline", 0);
  base.origin = "baseline";
  add(base, ok(2.0));
  add(verified("fast", 1, 1.0), ok(1.05));               // within 25%: no finding
  add(verified("offpred", 2, 0.5), ok(1.5));             // 200% off: calibration
  add(verified("hangs", 3, 1.0), {{"result", "hang"}, {"detail", "killed by the watchdog after 20 s"}});
  Record rej;
  rej.id = "rej";
  rej.verdict = "rejected";
  rej.rule = "sync.race";
  add(rej, {{"result", "wrong"}});                       // the gate said so: not a verifier defect
  std::string e;
  auto rep = route(rs, spec, d.path.string(), &e);
  ASSERT_TRUE(rep) << e;
  ASSERT_TRUE(rep->best);
  EXPECT_EQ(rs[*rep->best].id, "fast");
  ASSERT_EQ(rep->to_corpus.size(), 1u);
  EXPECT_EQ(rs[rep->to_corpus[0]].id, "hangs");
  EXPECT_EQ(rs[rep->to_corpus[0]].route, "corpus");
  ASSERT_EQ(rep->to_calibration.size(), 1u);
  EXPECT_EQ(rs[rep->to_calibration[0]].id, "offpred");
  EXPECT_EQ(rs[4].route, "");
  const std::string corpus_case = cake::test::readText((d.path / "findings/corpus/hangs.cake").string());
  EXPECT_NE(corpus_case.find("on the GPU it is hang: killed by the watchdog"), std::string::npos) << corpus_case;
  EXPECT_NE(corpus_case.find("def k(lm):"), std::string::npos);
  auto calib = nlohmann::json::parse(cake::test::readText((d.path / "findings/calibration.jsonl").string()));
  EXPECT_EQ(calib["id"], "offpred");
  EXPECT_DOUBLE_EQ(calib["measured_ms"].get<double>(), 1.5);
  EXPECT_NE(rep->text.find("best: fast 1.0500 ms"), std::string::npos) << rep->text;
  EXPECT_NE(rep->text.find("ratio to the baseline: 1.905x"), std::string::npos) << rep->text;
  EXPECT_EQ(cake::test::readText((d.path / "report.md").string()), rep->text);
  // routing again gives the same findings (idempotent)
  auto again = route(rs, spec, d.path.string(), &e);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->to_calibration.size(), 1u);
  EXPECT_EQ(cake::test::readText((d.path / "findings/calibration.jsonl").string()), calib.dump() + "\n");
}

// --------------------------------------------------------------- ablation

TEST(TuneAblate, FromRecordedResults) {
  // five verified candidates, all measured (an exhaustive sweep); the model
  // ranks the best second; two are within 2% of it
  std::vector<Record> rs = {verified("e0", 5, 5.0), verified("e1", 2, 2.0), verified("e2", 1, 1.0),
                            verified("e3", 4, 4.0), verified("e4", 3, 3.0)};
  const double ms[] = {1.30, 1.00, 1.015, 1.20, 1.50};
  for (size_t i = 0; i < rs.size(); ++i) rs[i].measurement = ok(ms[i]), rs[i].gpu_wall_s = 1;
  // without a measured rejection arm (b) is not measured, not zero
  EXPECT_NE(ablationTable({ablate("gated-only", rs)}).find("(b) without gates | not measured"), std::string::npos);
  // the gate's rejections, measured (--ungated): a hang under the watchdog,
  // a launch failure, one that ran correct, one that never reached the GPU
  auto rejected = [](const std::string& id, const std::string& result, double s) {
    Record r;
    r.id = id;
    r.verdict = "rejected";
    r.measurement = {{"result", result}};
    r.gpu_wall_s = s;
    return r;
  };
  rs.push_back(rejected("hang", "hang", 20));
  rs.push_back(rejected("launch", "launch_error", 0.5));
  rs.push_back(rejected("fine", "ok", 1));
  rs.push_back(rejected("nolower", "lower_error", 0));
  Record unmeasured = rejected("later", "", 0);
  unmeasured.measurement = nullptr;
  rs.push_back(unmeasured);
  Ablation a = ablate("run", rs);
  EXPECT_EQ(a.gated.runs, 5);
  EXPECT_EQ(a.gated.ok, 5);
  EXPECT_EQ(a.gated.broken, 0);
  EXPECT_DOUBLE_EQ(a.gated.seconds, 5);
  // (b) is every candidate without the gate: the verified ones and the rejected ones that reached the GPU
  EXPECT_EQ(a.rejected, 5);
  EXPECT_EQ(a.rejected_measured, 4);
  EXPECT_EQ(a.ungated.runs, 8);
  EXPECT_EQ(a.ungated.ok, 6);
  EXPECT_EQ(a.ungated.broken, 1);
  EXPECT_EQ(a.ungated.hangs, 1);
  EXPECT_EQ(a.ungated.failed, 1);
  EXPECT_DOUBLE_EQ(a.ungated.seconds, 26.5);
  EXPECT_DOUBLE_EQ(a.ungated.broken_seconds, 20.5);
  EXPECT_NE(ablationTable({a}).find("| run | (b) without gates (4 of 5 rejected measured) | 8 | 6 | 1 | 1 | 1 | 26.5 | 20.5 |"),
            std::string::npos)
      << ablationTable({a});
  ASSERT_TRUE(a.model.exhaustive);
  EXPECT_TRUE(a.model.top3_has_good);
  EXPECT_EQ(a.model.good, 2);
  EXPECT_EQ(a.model.runs_model, 1);          // rank 1 (e2, 1.015) is within 2%
  EXPECT_EQ(a.model.runs_enumeration, 2);    // e1
  EXPECT_DOUBLE_EQ(a.model.runs_random, 2.0);   // (5 + 1) / (2 + 1)
  EXPECT_EQ(a.model.best_rank, 2);
  EXPECT_TRUE(a.model.top3_has_best);
  const std::string t = ablationTable({a});
  EXPECT_NE(t.find("top 3 holds the measured best in 1 of 1"), std::string::npos) << t;
  // the best ranked 4th: top 3 misses it, and holds one within 2% only if rank 1-3 has one
  std::vector<Record> miss = {verified("m0", 1, 1.0), verified("m1", 2, 2.0), verified("m2", 3, 3.0),
                              verified("m3", 4, 4.0)};
  const double mms[] = {1.01, 1.5, 1.6, 1.0};
  for (size_t i = 0; i < miss.size(); ++i) miss[i].measurement = ok(mms[i]), miss[i].gpu_wall_s = 1;
  Ablation am = ablate("miss", miss);
  EXPECT_EQ(am.model.best_rank, 4);
  EXPECT_FALSE(am.model.top3_has_best);
  EXPECT_TRUE(am.model.top3_has_good);
  miss[0].measurement = ok(1.03);
  EXPECT_FALSE(ablate("miss", miss).model.top3_has_good);
  const std::string t2 = ablationTable({a, am});
  EXPECT_NE(t2.find("top 3 holds the measured best in 1 of 2 exhaustive run(s) (50%)"), std::string::npos) << t2;
  EXPECT_NE(t2.find("top 3 holds a candidate within 2% of it in 2 of 2"), std::string::npos) << t2;
  // not exhaustive: (c) says what it needs instead of a number
  rs[0].measurement = nullptr;
  Ablation partial = ablate("p", rs);
  EXPECT_FALSE(partial.model.exhaustive);
  EXPECT_NE(ablationTable({partial}).find("needs every verified candidate measured (4 of 5)"), std::string::npos);
}
