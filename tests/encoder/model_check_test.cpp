// runModelChecker(): covering values, verdicts, findings and their traces.
#include <gtest/gtest.h>

#include <set>

#include "checks/model_check.h"
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

Result run(const ir::Schedule& s, unsigned proof_timeout_ms = 3000) {
  Result r;
  checks::CheckOptions o;
  o.proof_timeout_ms = proof_timeout_ms;
  checks::runModelChecker(s, o, r.sink, r.verdicts);
  return r;
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
                         "sync.async-at-exit", "sync.phase-annotation-mismatch"})
    EXPECT_TRUE(ids.count(id)) << id;
  EXPECT_EQ(ids.size(), 11u);
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
