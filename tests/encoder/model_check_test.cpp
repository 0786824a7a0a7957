// runModelChecker(): covering values, verdicts, findings and their traces.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "checks/check.h"
#include "checks/model_check.h"
#include "ir/rule_ids.h"
#include "split_k_range.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;
using cake::testing::lineOf;

namespace {

const std::string kGemm = R"(@cake.schedule(target="sm_90a")
def gemm(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=4)
    smem_b = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=4, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=4, prod=[consumer], cons=[producer], init_count=1)
    k_tiles = lm.cdiv(K, 64)
    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k), iter=k, barrier=full)
    with consumer:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
)";

struct Result {
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
};

Result run(const ir::Schedule& s, unsigned proof_timeout_ms = 3000, unsigned timeout_ms = 10000) {
  Result r;
  checks::CheckOptions o;
  o.proof_timeout_ms = proof_timeout_ms;
  o.timeout_ms = timeout_ms;
  checks::runModelChecker(s, o, r.sink, r.verdicts);
  return r;
}
// The bounded check alone, with a wall-clock budget no load on a shared
// machine runs out (what is tested is what the values reach, not speed).
Result runBounded(const ir::Schedule& s) { return run(s, 0, 600000); }

// The rules of r's findings, and its verdicts' (property, kind) pairs.
std::set<std::string> rulesOf(const Result& r) {
  std::set<std::string> out;
  for (const auto& f : r.sink.findings()) out.insert(f.rule);
  return out;
}
std::set<std::pair<std::string, checks::VerdictKind>> kindsOf(const Result& r) {
  std::set<std::pair<std::string, checks::VerdictKind>> out;
  for (const auto& v : r.verdicts) out.insert({v.property, v.kind});
  return out;
}

// The model checker on s with `engine` and the default budgets (no wall
// clock a loaded machine runs out), with CAKE_PROOF_STATS set: the result
// and what it printed on stderr (the bounded check's and the proof's work).
std::pair<Result, std::string> runWithStats(const ir::Schedule& s, checks::SyncEngine engine) {
  Result r;
  checks::CheckOptions o;
  o.timeout_ms = 600000;  // the work budget decides, not the wall clock
  o.sync_engine = engine;
  ::setenv("CAKE_PROOF_STATS", "1", 1);
  ::testing::internal::CaptureStderr();
  checks::runModelChecker(s, o, r.sink, r.verdicts);
  std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("CAKE_PROOF_STATS");
  return {std::move(r), std::move(err)};
}

}  // namespace

TEST(ModelCheck, CoveringValuesHitTheTripCounts) {
  auto mod = compile(kGemm);
  const ir::Schedule& s = mod.schedules[0];
  std::set<int64_t> trips;
  for (const auto& b : checks::coveringBindings(s)) {
    int64_t k = b.params.at(2);
    EXPECT_GT(k, 0) << "lm.assume(K > 0)";
    trips.insert((k + 63) / 64);
  }
  for (int64_t t : {1, 3, 4, 5, 8, 9}) EXPECT_TRUE(trips.count(t)) << "trip count " << t;
  EXPECT_FALSE(trips.count(0));
}

// A persistent clustered schedule strides over its tiles by clusters
// (lm.grid_dim(0) // 2). Its tile-loop bound is valued as the rank-0 CTA sees
// it (block 2b of a grid of 2g), so the covering values give a cluster two
// tiles; valued at block b of grid g, the stride was 1 // 2 = 0 and M was
// never varied (one tile per cluster ever checked).
TEST(ModelCheck, ClusterStridedTileLoopGetsTwoTrips) {
  auto mod = compile(R"(@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def f(lm, A: LM.tma2d, M: LM.i32):
    lm.assume(M > 0)
    pool  = lm.smem(16384)
    a     = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    load  = lm.role(warps=[0])
    use   = lm.role(warps=[1])
    full  = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    empty = lm.barrier(count=2, prod=[use], cons=[load], init_count=2)
    tiles = lm.cdiv(max(lm.cdiv(M, 128) - lm.block_idx(0) // 2, 0), lm.grid_dim(0) // 2)
    with load:
        lm.cluster_sync()
        for t in lm.range(0, tiles):
            lm.wait(empty, iter=t - 2)
            a.tma_load(A, coords=(0, t), iter=t, barrier=full)
        lm.cluster_sync()
    with use:
        lm.cluster_sync()
        for t in lm.range(0, tiles):
            lm.wait(full, iter=t)
            lm.arrive(empty, iter=t, cta=0)
            lm.arrive(empty, iter=t, cta=1)
        lm.cluster_sync()
)");
  ASSERT_EQ(mod.schedules.size(), 1u);
  std::set<int64_t> trips;
  for (const auto& b : checks::coveringBindings(mod.schedules[0])) {
    const int64_t clusters = b.grid_dim[0];  // the binding counts clusters
    const int64_t pairs = (b.params.at(1) + 127) / 128;
    trips.insert((std::max<int64_t>(pairs - b.block_idx[0], 0) + clusters - 1) / clusters);
  }
  EXPECT_TRUE(trips.count(1));
  EXPECT_TRUE(trips.count(2));
}

// Without the proof, a pass is "checked" for the values explored; with it
// (the default), this mainloop is proved for every trip count.
TEST(ModelCheck, PassIsCheckedForTheValues) {
  auto mod = compile(kGemm);
  Result r = run(mod.schedules[0], 0);
  EXPECT_TRUE(r.sink.findings().empty());
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Checked);
  EXPECT_EQ(r.verdicts[0].detail.rfind("K in {1,", 0), 0u) << r.verdicts[0].detail;

  r = run(mod.schedules[0], 60000);
  EXPECT_TRUE(r.sink.findings().empty());
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Proved) << r.verdicts[0].detail;
  EXPECT_NE(r.verdicts[0].detail.find("lap induction"), std::string::npos) << r.verdicts[0].detail;
}

TEST(ModelCheck, ParameterFreeSyncIsProved) {
  auto mod = compile(R"(@cake.schedule(target="sm_90a")
def f(lm, Y: LM.tma2d, n: LM.i32):
    pool = lm.smem(8192)
    y = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    x = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(x, 0.0)
        lm.copy(y[0], x)
        lm.fence_proxy()
        y.tma_store(Y, coords=(n, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)");
  Result r = run(mod.schedules[0]);
  EXPECT_TRUE(r.sink.findings().empty());
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Proved);
}

TEST(ModelCheck, CounterexampleFinding) {
  std::string bad = kGemm;
  bad.replace(bad.find("lm.wait(empty, iter=k - 4)"), 26, "lm.wait(empty, iter=k - 5)");
  auto mod = compile(bad);
  Result r = run(mod.schedules[0]);
  const ir::Finding* race = nullptr;
  for (const auto& f : r.sink.findings())
    if (f.rule == "sync.race") race = &f;
  ASSERT_NE(race, nullptr);
  EXPECT_EQ(race->severity, ir::Severity::Error);
  EXPECT_EQ(race->category, ir::Category::ProgramSafety);
  EXPECT_EQ(race->verdict, "counterexample");
  EXPECT_EQ(race->range.line, lineOf(bad, "smem_a.tma_load"));
  EXPECT_NE(race->message.find("(for K="), std::string::npos) << race->message;
  ASSERT_FALSE(race->notes.empty());
  EXPECT_EQ(race->notes[0].range.line, lineOf(bad, "lm.mma(acc"));
  EXPECT_EQ(race->subject["role"], "producer");
  ASSERT_FALSE(race->trace.empty());
  // the refill of slot 0 (iteration 4) is on the trace
  const ir::TraceStep* refill = nullptr;
  for (const auto& st : race->trace)
    if (st.op == "smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)" && st.iteration == 4) refill = &st;
  ASSERT_NE(refill, nullptr);
  EXPECT_EQ(refill->role, "producer");
  EXPECT_EQ(refill->instance, -1);  // a one-instance role
  EXPECT_EQ(refill->barrier, "full");
  EXPECT_EQ(refill->slot, 0);
  EXPECT_EQ(refill->phase_meant, 1);
  EXPECT_EQ(refill->range.line, lineOf(bad, "smem_a.tma_load"));
  bool saw_wait = false;
  for (const auto& st : race->trace)
    if (st.op == "lm.wait(full, iter=k)" && st.role == "consumer") {
      saw_wait = true;
      EXPECT_EQ(st.completed, 1);
      EXPECT_EQ(st.phase_meant, 0);
    }
  EXPECT_TRUE(saw_wait);
  bool counter = false;
  for (const auto& v : r.verdicts) counter |= v.kind == checks::VerdictKind::Counterexample && v.property == "sync.race";
  EXPECT_TRUE(counter);
  // the rendered finding names the rule and the line
  EXPECT_NE(ir::renderText(*race).find("[sync.race]"), std::string::npos);
}

TEST(ModelCheck, RuleCatalog) {
  std::set<std::string> ids;
  for (const auto& r : checks::syncRules()) {
    ids.insert(std::string(r.id));
    // an annotation that disagrees with what runs is only a warning
    EXPECT_EQ(r.severity, r.id == "sync.phase-annotation-mismatch" ? ir::Severity::Warning : ir::Severity::Error);
    EXPECT_FALSE(r.summary.empty());
  }
  for (const char* id : {"sync.deadlock", "sync.race", "sync.stale-phase", "sync.lost-phase", "sync.arrival-overflow",
                         "sync.arrival-underflow", "sync.tx-imbalance", "data.stale-read", "proxy.missing-fence",
                         "sync.async-at-exit", "sync.phase-annotation-mismatch", "sync.cluster-init",
                         "sync.cluster-exit", "sync.grid-dependency", "data.uninitialized",
                         "data.stale-accumulator", "data.discarded-product"})
    EXPECT_TRUE(ids.count(id)) << id;
  EXPECT_EQ(ids.size(), 17u);
}

// The hook a proof engine (Z3) plugs into: its answers are used, and its
// counterexamples are replayed before they are shown.
TEST(ModelCheck, ProofEngineHook) {
  auto mod = compile(kGemm);
  const ir::Schedule& s = mod.schedules[0];
  encoder::setProofEngine([](const encoder::ModelCheckQuery& q) {
    EXPECT_FALSE(q.bindings.empty());
    encoder::ModelCheckResult r;
    r.outcome = encoder::Outcome::Proved;
    r.engine = "fake-prover";
    return r;
  });
  Result r = run(s);
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Proved);
  EXPECT_EQ(r.verdicts[0].detail, "fake-prover");

  // a counterexample that does not replay is an internal error
  encoder::setProofEngine([&](const encoder::ModelCheckQuery&) {
    encoder::ModelCheckResult r;
    r.outcome = encoder::Outcome::Violation;
    r.engine = "fake-prover";
    encoder::Violation v;
    v.rule = "sync.race";
    v.binding = encoder::Binding{};
    v.binding->params[2] = 64;
    v.trace = {{encoder::Step::Kind::Exec, 1, 0}};  // the consumer cannot start with its wait passing
    r.violations.push_back(v);
    return r;
  });
  r = run(s);
  encoder::setProofEngine(nullptr);
  ASSERT_FALSE(r.verdicts.empty());
  EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Error);
  EXPECT_NE(r.verdicts[0].detail.find("engines disagree"), std::string::npos) << r.verdicts[0].detail;
  EXPECT_TRUE(r.sink.findings().empty());
}

// ---------------------------------------------------------------- issue 9: no silent pass

namespace {

// kGemm with text replaced (each `from` must occur).
std::string variant(std::initializer_list<std::pair<std::string, std::string>> edits) {
  std::string t = kGemm;
  for (const auto& [from, to] : edits) {
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
  }
  return t;
}

const ir::Finding* findingOf(const Result& r, const std::string& rule) {
  for (const auto& f : r.sink.findings())
    if (f.rule == rule) return &f;
  return nullptr;
}

bool passes(const Result& r) {
  for (const auto& v : r.verdicts)
    if (v.kind == checks::VerdictKind::Proved || v.kind == checks::VerdictKind::Checked) return true;
  return false;
}

std::string describe(const Result& r) {
  std::string out;
  for (const auto& f : r.sink.findings()) out += f.rule + ": " + f.message + "\n";
  for (const auto& v : r.verdicts) out += v.property + ": " + std::string(checks::verdictName(v.kind)) + ": " + v.detail + "\n";
  return out;
}

}  // namespace

// Point 1: the covering values are drawn from the lm.assume domain, with
// trip counts around the smallest allowed one.
TEST(ModelCheck, CoveringValuesComeFromTheAssumedDomain) {
  auto mod = compile(variant({{"lm.assume(K > 0)", "lm.assume(K >= 4096)"}}));
  const auto bindings = checks::coveringBindings(mod.schedules[0]);
  ASSERT_FALSE(bindings.empty());
  std::set<int64_t> trips;
  for (const auto& b : bindings) {
    EXPECT_GE(b.params.at(2), 4096);
    trips.insert((b.params.at(2) + 63) / 64);
  }
  for (int64_t t : {64, 65, 67, 68, 69, 72, 73}) EXPECT_TRUE(trips.count(t)) << "trip count " << t;
}

// A schedule that hangs for every allowed K is caught; one correct for every
// allowed K (but not for K = 1, outside the domain) passes.
TEST(ModelCheck, AssumedDomainDecidesTheVerdict) {
  Result bad = run(compile(variant({{"lm.assume(K > 0)", "lm.assume(K >= 4096)"},
                                    {"            lm.arrive(empty, iter=k)",
                                     "            if k < 40:\n                lm.arrive(empty, iter=k)"}}))
                       .schedules[0],
                   0);
  EXPECT_FALSE(passes(bad)) << describe(bad);
  const ir::Finding* f = findingOf(bad, "sync.arrival-underflow");
  ASSERT_NE(f, nullptr) << describe(bad);
  EXPECT_NE(f->message.find("(for K=4096)"), std::string::npos) << f->message;

  // Four loads before the loop: only right when there are >= 4 k-blocks.
  Result good = run(compile(variant({{"lm.assume(K > 0)", "lm.assume(K >= 4096)"},
                                     {"        for k in lm.range(0, k_tiles):\n            lm.wait(empty, iter=k - 4)",
                                      "        for k in lm.range(0, 4):\n"
                                      "            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)\n"
                                      "            smem_b.tma_load(B, coords=(0, k), iter=k, barrier=full)\n"
                                      "        for k in lm.range(4, k_tiles):\n            lm.wait(empty, iter=k - 4)"}}))
                        .schedules[0],
                    0);
  EXPECT_TRUE(good.sink.findings().empty()) << describe(good);
  ASSERT_EQ(good.verdicts.size(), 1u);
  EXPECT_EQ(good.verdicts[0].kind, checks::VerdictKind::Checked) << describe(good);
  EXPECT_EQ(good.verdicts[0].detail.rfind("K in {4096,", 0), 0u) << good.verdicts[0].detail;
}

// No values satisfy the assumptions: unknown, never a pass.
TEST(ModelCheck, NoAllowedValuesIsUnknown) {
  Result r = run(compile(variant({{"lm.assume(K > 0)", "lm.assume(K > 0)\n    lm.assume(K < 0)"}})).schedules[0]);
  ASSERT_EQ(r.verdicts.size(), 1u) << describe(r);
  EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Unknown) << describe(r);
  EXPECT_NE(r.verdicts[0].detail.find("contradictory"), std::string::npos) << r.verdicts[0].detail;
}

// Point 2: a violation the proof for every trip count meets (past the
// trip counts the covering values reach) is a finding with parameter values.
TEST(ModelCheck, ProofViolationIsAFinding) {
  // `k // 3 != 2 * T` is neither affine in k nor monotone: the covering
  // values cannot place its flips (iterations 12 and 15). (Thresholds up to
  // 512 iterations, affine comparisons with parameters and, since session 45,
  // comparisons monotone in k such as `k // 3 < T` are among the covering
  // values: LoopGuardThresholdsBeyondTheDepthsAreCovered,
  // InnerTripGoal.EmptySplitGuardOnTheTileIsPlaced.)
  std::string bad = variant(
      {{"K: LM.i32):\n    lm.assume(K > 0)", "K: LM.i32, T: LM.i32):\n    lm.assume(K > 0)\n    lm.assume(T == 2)"},
       {"            lm.arrive(empty, iter=k)", "            if k // 3 != 2 * T:\n                lm.arrive(empty, iter=k)"}});
  Result bounded = run(compile(bad).schedules[0], 0);
  EXPECT_TRUE(bounded.sink.findings().empty()) << "the covering values do not reach it: " << describe(bounded);
  // ... and say so: unknown, not "checked" (exit 0).
  ASSERT_EQ(bounded.verdicts.size(), 1u) << describe(bounded);
  EXPECT_EQ(bounded.verdicts[0].kind, checks::VerdictKind::Unknown) << describe(bounded);
  EXPECT_NE(bounded.verdicts[0].detail.find("k // 3 != 2 * T"), std::string::npos) << bounded.verdicts[0].detail;

  Result r = run(compile(bad).schedules[0], 20000);
  EXPECT_FALSE(passes(r)) << describe(r);
  const ir::Finding* f = findingOf(r, "sync.arrival-underflow");
  ASSERT_NE(f, nullptr) << describe(r);
  EXPECT_NE(f->message.find("(for K="), std::string::npos) << f->message;
}

// Point 3: a guard comparing two parameters takes both outcomes, and the
// verdict names every parameter that reaches the synchronization.
TEST(ModelCheck, TwoSidedGuardsTakeBothOutcomes) {
  const std::string text = variant(
      {{"K: LM.i32):", "M: LM.i32, N: LM.i32, K: LM.i32):"},
       {"            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=k)",
        "            if M > N:\n                lm.arrive(empty, iter=k)\n                lm.mma_wait(pending=0)\n"
        "            else:\n                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=k)"}});
  auto mod = compile(text);
  std::set<int> signs;
  for (const auto& b : checks::coveringBindings(mod.schedules[0])) {
    int64_t d = b.params.at(2) - b.params.at(3);
    signs.insert(d > 0 ? 1 : d < 0 ? -1 : 0);
  }
  EXPECT_EQ(signs, (std::set<int>{-1, 0, 1}));
  Result r = run(mod.schedules[0], 0);
  const ir::Finding* f = findingOf(r, "sync.race");
  ASSERT_NE(f, nullptr) << describe(r);
  EXPECT_NE(f->message.find("M=2, N=1"), std::string::npos) << f->message;

  // The same guard with both orders right: the verdict names M and N.
  std::string fixed = text;
  fixed.replace(fixed.find("                lm.arrive(empty, iter=k)\n                lm.mma_wait(pending=0)"),
                std::string("                lm.arrive(empty, iter=k)\n                lm.mma_wait(pending=0)").size(),
                "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=k)");
  Result ok = run(compile(fixed).schedules[0], 0);
  EXPECT_TRUE(ok.sink.findings().empty()) << describe(ok);
  ASSERT_EQ(ok.verdicts.size(), 1u);
  EXPECT_NE(ok.verdicts[0].detail.find("M in {"), std::string::npos) << ok.verdicts[0].detail;
  EXPECT_NE(ok.verdicts[0].detail.find("N in {"), std::string::npos) << ok.verdicts[0].detail;
}

// Point 14: the bounded check and the proof share one budget (--timeout):
// once the bounded check has spent it, the proof does not start on a clock
// of its own, and the verdict says why.
TEST(ModelCheck, TimeoutBoundsTheWholeObligation) {
  auto mod = compile(kGemm);
  checks::CheckOptions o;
  o.timeout_ms = 1;
  o.proof_timeout_ms = 60000;
  Result r;
  checks::runModelChecker(mod.schedules[0], o, r.sink, r.verdicts);
  ASSERT_EQ(r.verdicts.size(), 1u) << describe(r);
  EXPECT_NE(r.verdicts[0].kind, checks::VerdictKind::Proved) << describe(r);
}

// A guard that reads only the loop's variable changes the schedule past the
// depths' trip-count targets (here: the consumer stops releasing slots from
// iteration 41 on, the producer hangs at iteration 45). The bounded check
// takes the iterations where the guard flips (and twice them) as trip
// counts; with the proof off, the hang is still found. Before, the trip
// counts stopped at 9 and such a schedule was "checked" (exit 0) whenever
// the proof said unknown.
TEST(ModelCheck, LoopGuardThresholdsBeyondTheDepthsAreCovered) {
  for (const char* cond : {"k < 41", "k % 100 < 41"}) {
    SCOPED_TRACE(cond);
    auto mod = compile(variant({{"            lm.arrive(empty, iter=k)",
                                 std::string("            if ") + cond + ":\n                lm.arrive(empty, iter=k)"}}));
    std::set<int64_t> trips;
    for (const auto& b : checks::coveringBindings(mod.schedules[0])) trips.insert((b.params.at(2) + 63) / 64);
    for (int64_t t : {40, 41, 42, 45, 46, 50}) EXPECT_TRUE(trips.count(t)) << "trip count " << t;
    Result r = run(mod.schedules[0], 0);
    EXPECT_FALSE(passes(r)) << describe(r);
    EXPECT_NE(findingOf(r, "sync.deadlock"), nullptr) << describe(r);
  }
  // Against a parameter fixed by an lm.assume: the trip count also runs
  // past the parameter (the hang shows from 10 trips on).
  auto param = compile(variant({{"K: LM.i32):\n    lm.assume(K > 0)", "K: LM.i32, T: LM.i32):\n    lm.assume(K > 0)\n    lm.assume(T == 6)"},
                                {"            lm.arrive(empty, iter=k)", "            if k < T:\n                lm.arrive(empty, iter=k)"}}));
  Result rp = run(param.schedules[0], 0);
  EXPECT_NE(findingOf(rp, "sync.deadlock"), nullptr) << describe(rp);
  // Scaled, offset and grid-dependent comparisons: the trip count is put
  // around the flip through the parameter or the block index.
  for (const char* cond : {"2 * k < T", "k + 3 < T + T", "k + lm.block_idx(0) < T - 1"}) {
    SCOPED_TRACE(cond);
    auto m = compile(variant({{"K: LM.i32):\n    lm.assume(K > 0)", "K: LM.i32, T: LM.i32):\n    lm.assume(K > 0)\n    lm.assume(T == 12)"},
                              {"            lm.arrive(empty, iter=k)",
                               std::string("            if ") + cond + ":\n                lm.arrive(empty, iter=k)"}}));
    Result r = run(m.schedules[0], 0);
    EXPECT_FALSE(passes(r)) << describe(r);
    EXPECT_NE(findingOf(r, "sync.deadlock"), nullptr) << describe(r);
  }
  // A threshold past the iterations the values run: with the proof off
  // (or unknown) the verdict is unknown and names the guard, never
  // "checked".
  for (const char* cond : {"k < 1000", "k % 2 == 0 or k < 5000", "2 * k < 1999"}) {
    SCOPED_TRACE(cond);
    auto m = compile(variant({{"            lm.arrive(empty, iter=k)",
                               std::string("            if ") + cond + ":\n                lm.arrive(empty, iter=k)"}}));
    Result r = run(m.schedules[0], 0);
    ASSERT_EQ(r.verdicts.size(), 1u) << describe(r);
    EXPECT_EQ(r.verdicts[0].kind, checks::VerdictKind::Unknown) << describe(r);
    EXPECT_NE(r.verdicts[0].detail.find(std::string("`") + cond + "`"), std::string::npos) << r.verdicts[0].detail;
  }
  // The same guard below the depths changes nothing past them: no extra trip counts.
  auto small = compile(variant({{"            lm.arrive(empty, iter=k)",
                                 "            if k < 100000:\n                lm.arrive(empty, iter=k)"}}));
  for (const auto& b : checks::coveringBindings(small.schedules[0])) EXPECT_LE((b.params.at(2) + 63) / 64, 9);
}

// A guard on the variable of a loop whose start is the instance
// (`lm.range(lm.instance(), k_tiles, 2)`: split-K over two warpgroups) is
// evaluated at the values each instance's variable takes. `k ==
// lm.instance()` is then true once per instance and flips nowhere past the
// depths; evaluated at every k for 16 instances it "changed its outcome 14
// times", and the correct SGLang file was unknown with the proof off
// (session 29). A real flip past the depths in such a loop is still run:
// a release that stops from k = 41 on hangs the loader (the phase it
// skips gets no arrival: sync.arrival-underflow, at K = 2817).
TEST(ModelCheck, GuardsOfAnInstanceStridedLoopTakeItsValues) {
  const std::string fixed =
      cake::testing::corpusText("corpus/bugs/sync.race/sglang_fused_a_gemm_sc_aliases_sa_no_prestore_barrier_fixed.cake");
  Result ok = runBounded(compile(fixed).schedules[0]);
  EXPECT_TRUE(rulesOf(ok).empty()) << describe(ok);
  EXPECT_TRUE(kindsOf(ok).count({"sync", checks::VerdictKind::Checked})) << describe(ok);
  Result bad = runBounded(compile(cake::testing::replace(fixed, "            lm.arrive(empty, iter=k)",
                                                          "            if k < 41:\n"
                                                          "                lm.arrive(empty, iter=k)"))
                              .schedules[0]);
  EXPECT_NE(findingOf(bad, "sync.arrival-underflow"), nullptr) << describe(bad);
}

// Parameters an lm.assume fact ties together (`lm.assume(M == K)`) cannot
// move one at a time: the bounded check ran K = M = 1 only, and lap
// induction's violations at trip counts 5 and 7 were "given by no allowed
// values", so both broken schedules were "checked" (exit 0). The goal
// values are now solved for with the tied parameters free.
TEST(ModelCheck, TiedParametersMoveTogether) {
  const std::string tie = "K: LM.i32, M: LM.i32):\n    lm.assume(K > 0)\n    lm.assume(M == K)";
  // a five-deep wait on a four-slot ring; a release that stops after tile 2
  for (const auto& [edit, rule] : std::vector<std::pair<std::pair<std::string, std::string>, std::string>>{
           {{"iter=k - 4)", "iter=k - 5)"}, "sync.arrival-overflow"},
           {{"            lm.arrive(empty, iter=k)", "            if k < 2:\n                lm.arrive(empty, iter=k)"},
            "sync.deadlock"}}) {
    SCOPED_TRACE(rule);
    auto mod = compile(variant({{"K: LM.i32):\n    lm.assume(K > 0)", tie}, edit}));
    std::set<int64_t> trips;
    for (const auto& b : checks::coveringBindings(mod.schedules[0])) {
      EXPECT_EQ(b.params.at(2), b.params.at(3)) << "lm.assume(M == K)";
      trips.insert((b.params.at(2) + 63) / 64);
    }
    for (int64_t t : {1, 3, 4, 5, 8, 9}) EXPECT_TRUE(trips.count(t)) << "trip count " << t;
    Result r = runBounded(mod.schedules[0]);
    EXPECT_NE(findingOf(r, rule), nullptr) << describe(r);
  }
  Result ok = runBounded(compile(variant({{"K: LM.i32):\n    lm.assume(K > 0)", tie}})).schedules[0]);
  EXPECT_TRUE(ok.sink.findings().empty()) << describe(ok);
  ASSERT_EQ(ok.verdicts.size(), 1u) << describe(ok);
  EXPECT_EQ(ok.verdicts[0].kind, checks::VerdictKind::Checked) << describe(ok);
  EXPECT_EQ(ok.verdicts[0].detail.rfind("K in {1,", 0), 0u) << ok.verdicts[0].detail;
}

// A guard whose flip needs two values to move together: the trip count
// through K, the flip through K and the block index (or a second
// parameter). `k + 64 * lm.block_idx(0) < K` never flips for block 0, and
// for block b only when K lies just past 64 * b. Varying one value at a
// time, the bounded check never ran such a flip, and a consumer that stops
// releasing slots there (a hang 4 tiles later) or releases a slot before
// its MMA retires (a race on the refill) was "checked" (exit 0) with the
// proof unknown. The flips are now placed together with the trip count
// (BindingSearch::placeFlips); the same guard around correct code still
// passes, and so does a guard whose flip only the last tile can see.
TEST(ModelCheck, LoopGuardFlipsThatNeedTwoValuesArePlaced) {
  const std::string release = "            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=k)";
  struct Case {
    const char* cond;
    const char* params;
    const char* assumes;
    bool broken;  // the hang and race variants are broken
  };
  for (const Case& c : {Case{"k + 64 * lm.block_idx(0) < K", "", "", true},
                        Case{"k + 64 * N < K", ", N: LM.i32", "\n    lm.assume(N >= 0)", true},
                        Case{"k * 64 + 64 < K", "", "", false}}) {
    SCOPED_TRACE(c.cond);
    auto with = [&](const std::string& body) {
      return compile(variant({{"K: LM.i32):\n    lm.assume(K > 0)",
                               std::string("K: LM.i32") + c.params + "):\n    lm.assume(K > 0)" + c.assumes},
                              {release, body}}));
    };
    const std::string guarded = std::string("            if ") + c.cond +
                                ":\n                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=k)\n"
                                "            else:\n";
    auto hang = with(std::string("            lm.mma_wait(pending=0)\n            if ") + c.cond +
                     ":\n                lm.arrive(empty, iter=k)");
    auto race = with(guarded + "                lm.arrive(empty, iter=k)\n                lm.mma_wait(pending=0)");
    auto good = with(guarded + "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=k)");
    Result rh = runBounded(hang.schedules[0]), rr = runBounded(race.schedules[0]), rg = runBounded(good.schedules[0]);
    if (c.broken) {
      EXPECT_NE(findingOf(rh, "sync.deadlock"), nullptr) << describe(rh);
      EXPECT_NE(findingOf(rr, "sync.race"), nullptr) << describe(rr);
    } else {
      // the flip lies on the last tile: no release is missed, nothing refills
      for (const Result* r : {&rh, &rr}) {
        EXPECT_TRUE(r->sink.findings().empty()) << describe(*r);
        ASSERT_EQ(r->verdicts.size(), 1u) << describe(*r);
        EXPECT_EQ(r->verdicts[0].kind, checks::VerdictKind::Checked) << describe(*r);
      }
    }
    EXPECT_TRUE(rg.sink.findings().empty()) << describe(rg);
    ASSERT_EQ(rg.verdicts.size(), 1u) << describe(rg);
    // No false alarm; where the values leave a far flip out (block 0's
    // guard never flips, block 64's only past 64 trips) the verdict names
    // it and is unknown (session 41), otherwise checked.
    const checks::PropertyVerdict& vg = rg.verdicts[0];
    if (vg.unreached.empty())
      EXPECT_EQ(vg.kind, checks::VerdictKind::Checked) << describe(rg);
    else
      EXPECT_EQ(vg.kind, checks::VerdictKind::Unknown) << describe(rg);
    if (!c.broken) continue;
    // The pairs (trip count T, first tile i with the guard false) the
    // covering values run: every i among the first tiles and the ring's
    // period boundaries, with 1, 2, S+1 and 2S+1 tiles from it on.
    std::set<std::pair<int64_t, int64_t>> pairs;
    for (const auto& b : checks::coveringBindings(good.schedules[0])) {
      const int64_t K = b.params.at(2), off = 64 * (b.params.count(3) ? b.params.at(3) : b.block_idx[0]);
      const int64_t T = (K + 63) / 64, i = K - off;
      if (i > 0 && i < T) pairs.insert({T, i});
    }
    for (int64_t i : {1, 2, 3, 4, 5, 9})
      for (int64_t v : {1, 2, 5, 9}) EXPECT_TRUE(pairs.count({i + v, i})) << "T=" << i + v << " i=" << i;
  }
}

// A split-K CTA (split_k_range.h) whose consumers skip their first full
// wait where the split starts past 0 (`if k > k0 or k0 == 0:`, k0 =
// lm.block_idx(1) * kpc; broken at block 1 with kpc = 1): the guard flips
// at iteration 1 only, so most pairs (trip count, flip iteration) that
// placeFlips wants are impossible, and the bit-vector solver took two
// queries of about a million resource units over the product
// `lm.block_idx(1) * kpc` to show each (one took 35 million): the bounded
// check's whole budget went before any exploration (*unknown*, exit 2;
// Sound34.SlowCopiesAfterARefusalKeepTheirBugs). The integer pre-tests
// (BindingSearch::ruledOut) drop them per iteration and per trip count, and
// the race is found within the default budget. With `kpc == 1` fixed every
// trip count past 1 is impossible: found within 3e9 units (before: 4.0e9
// units used on the 24 impossible pairs, *unknown* at 3e9). 5.4 s of CPU
// for both at load 7.
TEST(ModelCheck, SplitKFlipTargetsAreRuledOutCheaply) {
  const std::string guarded =
      cake::testing::replace(cake::testing::kSplitKRange, "            lm.wait(full, iter=k - k0)\n",
                             "            if k > k0 or k0 == 0:\n                lm.wait(full, iter=k - k0)\n");
  Result bad = runBounded(compile(guarded).schedules[0]);
  EXPECT_NE(findingOf(bad, "sync.race"), nullptr) << describe(bad);
  const std::string one_kblock =
      cake::testing::replace(guarded, "    lm.assume(kpc > 0)\n", "    lm.assume(kpc == 1)\n");
  Result within;
  checks::CheckOptions o;
  o.proof_timeout_ms = 0;
  o.timeout_ms = 600000;  // the work budget decides, not the wall clock
  o.bounded_timeout_ms = 3000;
  checks::runModelChecker(compile(one_kblock).schedules[0], o, within.sink, within.verdicts);
  EXPECT_NE(findingOf(within, "sync.race"), nullptr) << describe(within);
}

// A persistent loop whose first n_empty tiles have no work (block-sparse
// attention, corpus/bugs/sync.stale-phase/fa4_flex_empty_tile_phase_flip*):
// the guard `t >= n_empty` flips where the parameters and the grid put it.
// Its placement goal (the tiles with work, my_tiles - n_empty) evaluated to
// 0 in every sampling environment (M < 128, or the block index past the
// tile count), so it was taken for a constant and never placed: the values
// had first_work = 1 only, and a consumer phase that is right for 0 or 1
// empty tiles but wrong for 2 (t - min(n_empty, 1)) was "checked" and
// exited 0. The sampling now also gives the parameters different
// magnitudes and the grid a few small CTAs.
TEST(ModelCheck, PersistentEmptyTileGuardIsPlaced) {
  auto src = [](const std::string& phase) {
    return std::string(R"(@cake.schedule(target="sm_90a")
def sparse(lm, A: LM.tma2d, M: LM.i32, first_work: LM.i32):
    pool = lm.smem(8192)
    va   = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    frag = lm.regs(shape=(64, 64), dtype=lm.f32)
    p    = lm.role(warps=[0])
    c    = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=1, prod=[p], cons=[c], init_count=1)
    empty = lm.barrier(count=1, prod=[c], cons=[p], init_count=1)
    my_tiles = lm.cdiv(max(lm.cdiv(M, 128) - lm.block_idx(0), 0), lm.grid_dim(0))
    n_empty  = min(my_tiles, lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0)))
    with p:
        for t in lm.range(0, my_tiles):
            if t >= n_empty:
                if t > n_empty:
                    lm.wait(empty, stage=0)
                va.tma_load(A, coords=(t * 64, 0), stage=0, barrier=full)
    with c:
        for t in lm.range(0, my_tiles):
            if t >= n_empty:
                lm.wait(full, stage=0, phase=)") + phase + R"()
                lm.copy(frag, va[0])
                lm.fence_proxy()
                lm.arrive(empty, stage=0)
)";
  };
  auto good = compile(src("t - n_empty"));
  auto bad = compile(src("t - min(n_empty, 1)"));
  Result rg = runBounded(good.schedules[0]), rb = runBounded(bad.schedules[0]);
  EXPECT_TRUE(rg.sink.findings().empty()) << describe(rg);
  bool error = false;
  for (const auto& f : rb.sink.findings()) error |= f.severity == ir::Severity::Error;
  EXPECT_TRUE(error) << describe(rb);
  // the values put the first tile with work at tiles 0, 1 and 2 at least
  std::set<int64_t> firsts;
  for (const auto& b : checks::coveringBindings(good.schedules[0])) {
    const int64_t M = b.params.at(1), fw = b.params.at(2), blk = b.block_idx[0], g = b.grid_dim[0];
    const int64_t tiles = std::max<int64_t>((M + 127) / 128 - blk, 0), mine = (tiles + g - 1) / g;
    const int64_t ne = std::min<int64_t>(mine, (std::max<int64_t>(fw - blk, 0) + g - 1) / g);
    if (ne < mine) firsts.insert(ne);
  }
  for (int64_t i : {0, 1, 2}) EXPECT_TRUE(firsts.count(i)) << "no covering value with " << i << " empty tiles";
}

// `cake check --engine z3` on a broken schedule: once a rule is reported,
// the larger values are searched only for rules not reported yet
// (encoder::PoOptions::known, within a work cap). Rules met first on a
// larger value are still reported: in both files the explicit engine finds
// one of them only past the first broken value (bad_consumer_arrives_on_full:
// sync.arrival-underflow at K=257; sm100_persistent_no_acc_empty: sync.race
// after sync.lost-phase), and the Z3 engine reports the same rules.
TEST(ModelCheck, Z3EngineKeepsTheRulesOfLargerValues) {
  for (const char* rel : {"corpus/gates/struct.wrong-direction/bad_consumer_arrives_on_full.cake",
                          "corpus/bugs/sync.race/sm100_persistent_no_acc_empty.cake"}) {
    SCOPED_TRACE(rel);
    std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/" + rel);
    std::stringstream text;
    text << in.rdbuf();
    auto mod = compile(text.str());
    ASSERT_FALSE(mod.schedules.empty());
    std::set<std::string> rules[2];
    for (auto engine : {checks::SyncEngine::Explicit, checks::SyncEngine::Z3}) {
      Result r;
      checks::CheckOptions o;
      o.proof_timeout_ms = 0;
      o.timeout_ms = 600000;  // the work budget decides, not the wall clock
      o.sync_engine = engine;
      checks::runModelChecker(mod.schedules[0], o, r.sink, r.verdicts);
      for (const auto& f : r.sink.findings())
        if (f.rule.rfind("sync.", 0) == 0) rules[engine == checks::SyncEngine::Z3].insert(f.rule);
      EXPECT_TRUE(std::any_of(r.verdicts.begin(), r.verdicts.end(),
                              [](const auto& v) { return v.kind == checks::VerdictKind::Counterexample; }))
          << describe(r);
    }
    EXPECT_GE(rules[0].size(), 2u);
    EXPECT_EQ(rules[0], rules[1]);
  }
}

// --engine z3 before a finding: the Z3 engine's queries share
// CheckOptions::z3_work_ms of work. A value whose query runs out of it is
// decided by the explicit engine, never passed, and the verdict names the
// values so decided (docs/z3.md "The Z3 engine's work cap"); without a cap
// Z3 decides every value. The verdicts and rules are the explicit engine's.
TEST(ModelCheck, Z3EngineOutOfWorkFallsBackToTheExplicitEngine) {
  const std::string fell = "the explicit engine decided";
  for (const char* rel : {"corpus/gemm/sm90_ws_4stage.cake", "corpus/bugs/sync.race/sm100_persistent_no_acc_empty.cake"}) {
    SCOPED_TRACE(rel);
    auto mod = compile(cake::testing::corpusText(rel));
    ASSERT_FALSE(mod.schedules.empty());
    auto check = [&](checks::SyncEngine engine, unsigned z3_work_ms) {
      Result r;
      checks::CheckOptions o;
      o.proof_timeout_ms = 0;
      o.timeout_ms = 600000;  // the work budget decides, not the wall clock
      o.sync_engine = engine;
      o.z3_work_ms = z3_work_ms;
      checks::runModelChecker(mod.schedules[0], o, r.sink, r.verdicts);
      return r;
    };
    auto says = [](const Result& r, const std::string& what) {
      return std::any_of(r.verdicts.begin(), r.verdicts.end(),
                         [&](const auto& v) { return v.detail.find(what) != std::string::npos; });
    };
    const Result x = check(checks::SyncEngine::Explicit, 0);
    const Result whole = check(checks::SyncEngine::Z3, 0);         // no cap: Z3 decides every value
    const Result tiny = check(checks::SyncEngine::Z3, 1);          // 1 ms worth: Z3 runs out at once
    const Result dflt = check(checks::SyncEngine::Z3, checks::CheckOptions{}.z3_work_ms);
    EXPECT_FALSE(says(whole, fell)) << describe(whole);
    EXPECT_FALSE(says(whole, "found by the explicit engine")) << describe(whole);
    EXPECT_TRUE(says(tiny, fell) || says(tiny, "found by the explicit engine")) << describe(tiny);
    for (const Result* r : {&whole, &tiny, &dflt}) {
      EXPECT_EQ(kindsOf(*r), kindsOf(x)) << describe(*r);
      EXPECT_EQ(rulesOf(*r), rulesOf(x)) << describe(*r);
      for (const auto& v : r->verdicts) EXPECT_NE(v.kind, checks::VerdictKind::Unknown) << describe(*r);
    }
  }
}

// Once the Z3 engine's queries used up --z3-work before the first finding,
// the later values are decided by the explicit engine too (docs/z3.md "The
// Z3 engine's work cap", "After a finding, once the cap was used up"): on
// sm90_assume_large_k_release_stops the K=4096 query runs out, the explicit
// engine finds the counterexample there, and K=4097's query (which ran out
// of kZ3AfterFinding as well, 1.4 s of CPU for nothing) is no longer asked.
// The bounded check's query count (CAKE_PROOF_STATS, deterministic) is 1,
// and the verdict is the explicit engine's.
TEST(ModelCheck, Z3EngineOutOfWorkBeforeAFindingLeavesLaterValuesToTheExplicitEngine) {
  auto mod = compile(cake::testing::corpusText("corpus/bugs/sync.arrival-underflow/sm90_assume_large_k_release_stops.cake"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto [z3, z3_err] = runWithStats(mod.schedules[0], checks::SyncEngine::Z3);
  const auto [x, x_err] = runWithStats(mod.schedules[0], checks::SyncEngine::Explicit);
  EXPECT_NE(z3_err.find("bounded-stats:"), std::string::npos) << z3_err;
  EXPECT_NE(z3_err.find(" queries=1 "), std::string::npos) << z3_err;
  EXPECT_EQ(rulesOf(z3), rulesOf(x)) << describe(z3);
  EXPECT_TRUE(rulesOf(z3).count("sync.arrival-underflow")) << describe(z3);
  EXPECT_TRUE(std::any_of(z3.verdicts.begin(), z3.verdicts.end(), [](const auto& v) {
    return v.kind == checks::VerdictKind::Counterexample && v.detail.find("found by the explicit engine") != std::string::npos;
  })) << describe(z3);
}

// The simplex pass of Z3-po spends 1-2.5 us of CPU per resource unit, the
// other solvers 0.13-0.3 us: under the Z3 engine's cap its units count
// kSimplexRlimitWeight times (docs/z3.md "The simplex pass's resource
// units"). The repeated Kokkos team reduction had every query past
// n_calls = 1 on the simplex pass, and the values from n_calls = 4 on
// taken from Z3 within the default cap (before the weight: n_calls = 4
// and 5 were Z3's, 2.5 s of CPU). Since its slot events are kept apart by
// difference constraints instead of distinct (docs/z3.md "Ties without
// distinct"), the difference-logic pass decides every value alone, and
// n_calls = 4 is Z3's again within the same cap (0.15 s of CPU);
// the verdict and rules are the explicit engine's either way.
TEST(ModelCheck, Z3EngineCapChargesTheSimplexPassAtItsCost) {
  auto mod = compile(cake::testing::corpusText(
      "corpus/bugs/sync.race/kokkos_inter_warp_reduction_repeated_no_barrier_fixed.cake"));
  ASSERT_FALSE(mod.schedules.empty());
  auto check = [&](checks::SyncEngine engine) {
    Result r;
    checks::CheckOptions o;
    o.timeout_ms = 600000;  // the work budget decides, not the wall clock
    o.sync_engine = engine;
    checks::runModelChecker(mod.schedules[0], o, r.sink, r.verdicts);
    return r;
  };
  const Result z3 = check(checks::SyncEngine::Z3);
  const Result x = check(checks::SyncEngine::Explicit);
  auto syncOf = [](const Result& r) {
    for (const auto& v : r.verdicts)
      if (v.property == "sync") return v;
    return checks::PropertyVerdict{};
  };
  const checks::PropertyVerdict zs = syncOf(z3), xs = syncOf(x);
  EXPECT_EQ(zs.kind, xs.kind) << describe(z3);
  EXPECT_EQ(zs.kind, checks::VerdictKind::Proved) << describe(z3);
  // (n_calls = 4 and 5 within the explicit engine's trials; since session
  // 26's reducer changes the explicit trials also decide n_calls = 8 and 9,
  // so the proof-first path is left to
  // Z3EngineValuesItGivesUpOnAreDecidedByTheProofFirst)
  EXPECT_NE(zs.detail.find("the explicit engine decided"), std::string::npos) << zs.detail;
  EXPECT_NE(zs.detail.find("(n_calls=5; n_calls=8"), std::string::npos) << zs.detail;
}

// A schedule that an earlier check (layout, structure) already failed gets
// its proof cut to kProofAfterError of work, not skipped: the verdict is
// "checked" with the reason where the proof needs more, the proof's
// findings within the cut are still reported, and without the earlier
// error the same schedule is proved in full (docs/z3.md "The proof of a
// schedule that already fails").
TEST(ModelCheck, ProofOfAFailingScheduleIsCutNotDropped) {
  auto load = [](const char* rel) {
    std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/" + rel);
    std::stringstream text;
    text << in.rdbuf();
    return compile(text.str());
  };
  auto syncVerdict = [](const std::vector<checks::PropertyVerdict>& vs) {
    for (const auto& v : vs)
      if (v.property == "sync") return v;
    return checks::PropertyVerdict{"none", checks::VerdictKind::Error, "no sync verdict"};
  };
  checks::CheckOptions o;
  o.timeout_ms = 600000;  // the work budgets decide, not the wall clock
  {
    // A schedule whose sync proof needs 2.1e9 work units (more than the cut,
    // 1e9; within the default 3e9), with an earlier check's error seeded.
    // (Session 23's reductions brought corpus/layout/bad_mma_shape_third_instance,
    // this test's schedule before, down to 1.8e7 units: its proof now fits the cut.)
    auto mod = load("corpus/layout/good_smem_limit_slack_bm_224.cake");
    ASSERT_FALSE(mod.schedules.empty());
    Result seeded;
    seeded.sink.add(ir::makeFinding(ir::Rule::MmaShapeMismatch, {}, "an earlier check's error"));
    checks::runModelChecker(mod.schedules[0], o, seeded.sink, seeded.verdicts);
    const auto cut = syncVerdict(seeded.verdicts);
    EXPECT_EQ(cut.kind, checks::VerdictKind::Checked) << cut.detail;
    EXPECT_NE(cut.detail.find("already fails mma.shape-mismatch"), std::string::npos) << cut.detail;
    Result alone;  // the model checker without the earlier error: the full proof
    checks::runModelChecker(mod.schedules[0], o, alone.sink, alone.verdicts);
    EXPECT_EQ(syncVerdict(alone.verdicts).kind, checks::VerdictKind::Proved) << describe(alone);
  }
  {
    // layout.misaligned; the views then overlap, and the proof (within the
    // cut) meets the race that the bounded check's values do not show
    auto mod = load("corpus/mutants/layout/good_mma_no_instruction_bn_multiple_of_8/misalign-swizzle-L22.cake");
    ASSERT_FALSE(mod.schedules.empty());
    checks::CheckResult all = checks::checkSchedule(mod.schedules[0], o);
    EXPECT_TRUE(std::any_of(all.findings.begin(), all.findings.end(),
                            [](const ir::Finding& f) { return f.rule == "layout.misaligned"; }));
    EXPECT_TRUE(std::any_of(all.findings.begin(), all.findings.end(),
                            [](const ir::Finding& f) { return f.rule == "sync.race"; }));
    EXPECT_TRUE(std::any_of(all.verdicts.begin(), all.verdicts.end(), [](const checks::PropertyVerdict& v) {
      return v.property == "sync.race" && v.kind == checks::VerdictKind::Counterexample;
    }));
  }
  {
    // a proof that fits the cut is still a proof
    auto mod = compile(kGemm);
    Result seeded;
    seeded.sink.add(ir::makeFinding(ir::Rule::LayoutSmemLimit, {}, "an earlier check's error"));
    checks::runModelChecker(mod.schedules[0], o, seeded.sink, seeded.verdicts);
    EXPECT_EQ(syncVerdict(seeded.verdicts).kind, checks::VerdictKind::Proved) << describe(seeded);
  }
}

// One block of four warps staging 32 keys per warp through shared memory
// (cuCollections' find kernel, PR #522): the two tests below add the body.
constexpr const char* kBlockStagingPrelude = R"(@cake.schedule(target="sm_80")
def f(lm, Keys: LM.gmem, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 0)
    lm.assume(n % 32 == 0)
    pool = lm.smem(512)
    buf  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    r    = lm.regs(shape=(1, 32), dtype=lm.f32)
    blk  = lm.role(warps=[0, 1, 2, 3], group=1)
    bs   = lm.named_barrier(roles=[blk])
    with blk:
        w = lm.instance()
)";

// A guard that compares a parameter with the grid and the instance only
// (`if 128 * lm.block_idx(0) + 32 * lm.instance() < n`, no loop around
// it: the bounds check of cuCollections' find kernel, PR #522) gets
// covering values at each instance's flip. Before, neither side was a
// constant nor both parameter expressions, so no goal was made, n was run
// at 0 only (every warp skips the branch), and the deadlock of a
// __syncthreads() inside the branch exited 0 ("checked: n in {0}").
TEST(ModelCheck, GuardAgainstGridAndInstanceIsCovered) {
  const std::string text = std::string(kBlockStagingPrelude) + R"(        idx = 128 * lm.block_idx(0) + 32 * w
        if idx < n:
            lm.copy(r, Keys, coords=(0, idx))
            lm.copy(buf[w], r)
            lm.sync(bs)
            lm.copy(r, buf[w])
            lm.copy(Out, r, coords=(0, idx))
)";
  auto mod = compile(text);
  ASSERT_EQ(mod.schedules.size(), 1u);
  std::set<int64_t> ns;
  for (const auto& b : checks::coveringBindings(mod.schedules[0])) ns.insert(b.params.at(2));
  for (int64_t v : {32, 64, 96}) EXPECT_TRUE(ns.count(v)) << "n = " << v << " (warps 0.." << v / 32 - 1 << " only)";
  Result r = runBounded(mod.schedules[0]);
  std::set<std::string> rules;
  for (const auto& f : r.sink.findings()) rules.insert(f.rule);
  EXPECT_TRUE(rules.count("sync.deadlock")) << describe(r);
}

// A bug that one block index shows only with a problem size large enough to
// give that block work (`if b != 5 or w < 2: lm.sync(bs)` behind `128 * b <
// n`): the covering values take each guard's goal alone (block 5 at a small
// n, or a large n at block 0) and miss it. The unlooped proof's class of
// guard outcomes meets the deadlock and names a binding of it; the bounded
// check runs that binding, so the verdict is a counterexample, not
// "checked" with exit 0 (found in session 20). Without the witness run the
// sync verdict was Checked.
TEST(ModelCheck, ProofWitnessOfOneBlockIsCheckedByTheBoundedCheck) {
  const std::string text = std::string(kBlockStagingPrelude) + R"(        b = lm.block_idx(0)
        if 128 * b < n:
            idx = 128 * b + 32 * w
            if idx < n:
                lm.copy(r, Keys, coords=(0, idx))
                lm.copy(buf[w], r)
            if b != 5 or w < 2:
                lm.sync(bs)
            if idx < n:
                lm.copy(r, buf[w])
                lm.copy(Out, r, coords=(0, idx))
)";
  auto mod = compile(text);
  ASSERT_EQ(mod.schedules.size(), 1u);
  Result r = run(mod.schedules[0], 3000, 600000);
  bool deadlock = false;
  for (const auto& f : r.sink.findings()) deadlock |= f.rule == "sync.deadlock";
  EXPECT_TRUE(deadlock) << describe(r);
  bool counterexample = false;
  for (const auto& v : r.verdicts)
    counterexample |= v.property == "sync.deadlock" && v.kind == checks::VerdictKind::Counterexample &&
                      v.detail.find("block_idx(0)=5") != std::string::npos;
  EXPECT_TRUE(counterexample) << describe(r);
}

// The same joint bug inside a loop over a parameter (`for k in
// lm.range(0, K)`): the proof is lap induction, which refuses the schedule
// (n is read besides the trip count) and names no witness, so the values
// were all the bounded check ran: block 5 at n <= 96, or n up to 96 at
// block 0, and the verdict was "checked" with exit 0. The covering values
// now take one binding per allowed vector of the guards' outcomes, at the
// smallest trip counts (BindingSearch::guardCombinations): block 5 with
// work is one of them. Its correct twin (block 5 skips the barrier with
// every warp) stays clean.
namespace {
constexpr const char* kBlockStagingKLoop = R"(        b = lm.block_idx(0)
        for k in lm.range(0, K):
            if 128 * b < n:
                idx = 128 * b + 32 * w
                if idx < n:
                    lm.copy(r, Keys, coords=(k, idx))
                    lm.copy(buf[w], r)
                if b != 5 or w < 2:
                    lm.sync(bs)
                if idx < n:
                    lm.copy(r, buf[w])
                    lm.copy(Out, r, coords=(k, idx))
)";
std::string blockStagingWithK(const std::string& body) {
  std::string text = cake::testing::replace(std::string(kBlockStagingPrelude), "n: LM.i32):", "n: LM.i32, K: LM.i32):");
  return cake::testing::replace(text, "    lm.assume(n % 32 == 0)\n", "    lm.assume(n % 32 == 0)\n    lm.assume(K >= 1)\n") + body;
}
}  // namespace

TEST(ModelCheck, GuardOutcomesAreCombinedUnderASymbolicLoop) {
  auto mod = compile(blockStagingWithK(kBlockStagingKLoop));
  ASSERT_EQ(mod.schedules.size(), 1u);
  const ir::Schedule& s = mod.schedules[0];
  // a covering binding gives block 5 work, with one trip of the K loop
  bool block5 = false;
  for (const auto& b : checks::coveringBindings(s))
    block5 |= b.block_idx[0] == 5 && b.params.at(2) > 128 * 5 && b.params.at(3) == 1;
  EXPECT_TRUE(block5);
  Result r = run(s, 3000, 600000);
  bool counterexample = false;
  for (const auto& v : r.verdicts)
    counterexample |= v.property == "sync.deadlock" && v.kind == checks::VerdictKind::Counterexample &&
                      v.detail.find("block_idx(0)=5") != std::string::npos;
  EXPECT_TRUE(counterexample) << describe(r);
}

TEST(ModelCheck, GuardOutcomesCombinedKeepTheCorrectTwinClean) {
  auto mod = compile(blockStagingWithK(cake::testing::replace(kBlockStagingKLoop, "if b != 5 or w < 2:", "if b != 5:")));
  ASSERT_EQ(mod.schedules.size(), 1u);
  Result r = run(mod.schedules[0], 3000, 600000);
  for (const auto& f : r.sink.findings()) EXPECT_NE(f.severity, ir::Severity::Error) << describe(r);
  bool clean = false;
  for (const auto& v : r.verdicts)
    if (v.property == "sync") {
      clean = v.kind == checks::VerdictKind::Checked || v.kind == checks::VerdictKind::Proved;
      EXPECT_EQ(v.detail.find("leave out"), std::string::npos) << v.detail;
    }
  EXPECT_TRUE(clean) << describe(r);
}

// Past the cap on guard outcomes the combinations are not taken, and the
// verdict says so (what the values leave out) and is unknown, never
// "checked".
TEST(ModelCheck, GuardOutcomesPastTheCapAreNamedInTheVerdict) {
  std::string body = "        for k in lm.range(0, K):\n";
  for (int i = 1; i <= 25; ++i) body += "            if n > " + std::to_string(32 * i) + ":\n                lm.sync(bs)\n";
  auto mod = compile(blockStagingWithK(body));
  ASSERT_EQ(mod.schedules.size(), 1u);
  Result r = run(mod.schedules[0], 0, 600000);
  bool named = false;
  for (const auto& v : r.verdicts)
    named |= v.property == "sync" && v.kind == checks::VerdictKind::Unknown &&
             v.detail.find("leave out the combinations of its 25 guard outcomes (at most 24 are combined)") !=
                 std::string::npos;
  EXPECT_TRUE(named) << describe(r);
}

// --engine z3: a value whose Z3 queries run out of --z3-work and whose
// explicit check does not end within the explicit engine's trials
// (kExplicitTrial of work over all such values) is left to the proof first
// (docs/z3.md "Values Z3 gives up on: the proof first"). On quack's fixed
// epilogue-load schedule the queries run out from K=257 on and the values
// from K=449 on are deferred (from K=193 and K=385 before the slot events
// were kept apart without distinct, docs/z3.md "Ties without distinct":
// the difference-logic pass now decides K=193 within the work): the
// lap-induction proof proves the schedule
// and the verdict names the values it decided. With the MMA warp's commit
// to `empty` left out at k = 6 (broken from K=449 on: sync.arrival-underflow
// at K=513) the proof is tried (its CAKE_PROOF_STATS line) and does not
// prove, the deferred values go to the explicit engine as before, and its
// counterexample is reported. Either way the verdict kinds and the rules
// are the explicit engine's. Work, not time: the same values at any load.
TEST(ModelCheck, Z3EngineValuesItGivesUpOnAreDecidedByTheProofFirst) {
  const std::string by_proof = "z3-po: the proof decided the values from ";
  auto verdictOf = [](const Result& r, const std::string& property) {
    for (const auto& v : r.verdicts)
      if (v.property == property) return v;
    return checks::PropertyVerdict{"none", checks::VerdictKind::Error, "no verdict"};
  };
  const std::string fixed =
      cake::testing::corpusText("corpus/bugs/sync.deadlock/quack_sm100_epi_load_barrier_two_warps_fixed.cake");
  const std::string commit = "            lm.mma_commit(barrier=empty, iter=k)\n";
  const size_t at = fixed.find(commit);
  ASSERT_NE(at, std::string::npos);
  const std::string broken =
      fixed.substr(0, at) + "            if k != 6:\n    " + commit + fixed.substr(at + commit.size());
  for (const bool is_fixed : {true, false}) {
    SCOPED_TRACE(is_fixed ? "fixed" : "commit left out at k = 6");
    auto mod = compile(is_fixed ? fixed : broken);
    ASSERT_FALSE(mod.schedules.empty());
    const auto [z3, z3_err] = runWithStats(mod.schedules[0], checks::SyncEngine::Z3);
    const auto [x, x_err] = runWithStats(mod.schedules[0], checks::SyncEngine::Explicit);
    EXPECT_EQ(kindsOf(z3), kindsOf(x)) << describe(z3);
    EXPECT_EQ(rulesOf(z3), rulesOf(x)) << describe(z3);
    const checks::PropertyVerdict zs = verdictOf(z3, "sync");
    if (is_fixed) {
      EXPECT_EQ(zs.kind, checks::VerdictKind::Proved) << describe(z3);
      EXPECT_NE(zs.detail.find(by_proof + "K=449 on"), std::string::npos) << zs.detail;
      EXPECT_NE(zs.detail.find("lap induction"), std::string::npos) << zs.detail;
    } else {
      const checks::PropertyVerdict u = verdictOf(z3, "sync.arrival-underflow");
      EXPECT_EQ(u.kind, checks::VerdictKind::Counterexample) << describe(z3);
      EXPECT_NE(u.detail.find("K=513 (found by the explicit engine"), std::string::npos) << u.detail;
      EXPECT_EQ(zs.detail.find(by_proof), std::string::npos) << zs.detail;
      // the proof ran first (and did not prove); the explicit engine's check runs none
      EXPECT_NE(z3_err.find("proof-stats: outcome="), std::string::npos) << z3_err;
      EXPECT_EQ(x_err.find("proof-stats: outcome="), std::string::npos) << x_err;
    }
  }
}
