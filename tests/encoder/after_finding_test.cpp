// The explicit engine's search for other rules after the first finding:
// its work cap (CheckOptions::after_finding_work_ms, `cake check
// --after-finding-work`; docs/z3.md "The explicit engine after the first
// finding"). The first finding and the verdict never change; when the cap
// stops the search, a *unknown* verdict of "sync" says so and names the
// values left; the same input gives the same report twice.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/model_check.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;

// A named namespace (not an anonymous one): the unity build compiles this
// file in one unit with model_check_test.cpp, whose helpers share names.
namespace after_finding {

using cake::testing::corpusText;

struct Result {
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
};

// The bounded check of s (no proof: the schedule is broken) with the search
// after the first finding capped at `after_ms` milliseconds' worth of work
// (0: no cap); the wall clock so long that only work decides.
Result check(const ir::Schedule& s, unsigned after_ms, checks::SyncEngine engine = checks::SyncEngine::Explicit) {
  Result r;
  checks::CheckOptions o;
  o.proof_timeout_ms = 0;
  o.timeout_ms = 600000;
  o.after_finding_work_ms = after_ms;
  o.sync_engine = engine;
  checks::runModelChecker(s, o, r.sink, r.verdicts);
  return r;
}

std::set<std::string> rulesOf(const Result& r) {
  std::set<std::string> out;
  for (const auto& f : r.sink.findings()) out.insert(f.rule);
  return out;
}

// Everything the check reported, in order: findings (rule, line, message,
// trace length) and verdicts (property, kind, detail).
std::string report(const Result& r) {
  std::string out;
  for (const auto& f : r.sink.findings())
    out += f.rule + ":" + std::to_string(f.range.line) + ": " + f.message + " [" + std::to_string(f.trace.size()) +
           " steps]\n";
  for (const auto& v : r.verdicts)
    out += v.property + " " + std::string(checks::verdictName(v.kind)) + ": " + v.detail + "\n";
  return out;
}

// The verdict that says the search for other rules stopped, if any.
const checks::PropertyVerdict* stopped(const Result& r) {
  for (const auto& v : r.verdicts)
    if (v.property == "sync" && v.kind == checks::VerdictKind::Unknown &&
        v.detail.find("the search for other rules stopped") != std::string::npos)
      return &v;
  return nullptr;
}

const checks::PropertyVerdict* firstCounterexample(const Result& r) {
  for (const auto& v : r.verdicts)
    if (v.kind == checks::VerdictKind::Counterexample) return &v;
  return nullptr;
}

// A persistent GEMM whose accumulator is reused without its empty barrier:
// data.discarded-product on its first broken value, sync.race and
// sync.lost-phase on larger ones (2.3e7 work units after the first finding
// without a cap: a 1e6-unit cap cannot finish them).
const char* kBroken = "corpus/bugs/sync.race/sm100_persistent_no_acc_empty.cake";


TEST(AfterFinding, TheCapStopsTheSearchAndSaysWhereButKeepsTheFirstFinding) {
  auto mod = compile(corpusText(kBroken));
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules[0];
  const Result whole = check(s, 0), capped = check(s, 1);

  // Without a cap every later value is searched: several rules, no note.
  EXPECT_GE(rulesOf(whole).size(), 2u) << report(whole);
  EXPECT_EQ(stopped(whole), nullptr) << report(whole);

  // With it the schedule is still broken, with the same first finding (the
  // same rule, value, message and trace), and only rules the whole search
  // reports too.
  ASSERT_FALSE(capped.sink.findings().empty()) << report(capped);
  const ir::Finding& a = whole.sink.findings().front();
  const ir::Finding& b = capped.sink.findings().front();
  EXPECT_EQ(a.rule, b.rule);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.range.line, b.range.line);
  EXPECT_EQ(a.trace.size(), b.trace.size());
  ASSERT_NE(firstCounterexample(capped), nullptr) << report(capped);
  EXPECT_EQ(firstCounterexample(capped)->property, firstCounterexample(whole)->property);
  EXPECT_EQ(firstCounterexample(capped)->detail, firstCounterexample(whole)->detail);
  const std::set<std::string> some = rulesOf(capped), all = rulesOf(whole);
  EXPECT_TRUE(std::includes(all.begin(), all.end(), some.begin(), some.end())) << report(capped);

  // ... and says where the search stopped: the cap, and the values left.
  const checks::PropertyVerdict* v = stopped(capped);
  ASSERT_NE(v, nullptr) << report(capped);
  EXPECT_NE(v->detail.find("--after-finding-work"), std::string::npos) << v->detail;
  EXPECT_TRUE(v->detail.find("not searched: ") != std::string::npos ||
              v->detail.find("searched in part") != std::string::npos)
      << v->detail;
}

// Work, not time: the same schedule reports the same rules, traces and
// verdicts (the cut's text included) on every run.
TEST(AfterFinding, TheCutIsTheSameOnEveryRun) {
  auto mod = compile(corpusText(kBroken));
  ASSERT_FALSE(mod.schedules.empty());
  const std::string first = report(check(mod.schedules[0], 1)), second = report(check(mod.schedules[0], 1));
  EXPECT_NE(first.find("the search for other rules stopped"), std::string::npos) << first;
  EXPECT_EQ(first, second);
}

// The default cap leaves the rules this file's later values show (its
// corpus expectation is sync.race, found after the first finding).
TEST(AfterFinding, TheDefaultCapKeepsTheRulesOfLaterValues) {
  auto mod = compile(corpusText(kBroken));
  ASSERT_FALSE(mod.schedules.empty());
  const Result whole = check(mod.schedules[0], 0);
  const Result dflt = check(mod.schedules[0], checks::CheckOptions{}.after_finding_work_ms);
  EXPECT_EQ(rulesOf(dflt), rulesOf(whole)) << report(dflt);
  EXPECT_TRUE(rulesOf(dflt).count("sync.race")) << report(dflt);
}

// Two consumers of a 2-stage ring whose producer never waits for a free
// stage: broken from 3 tiles on (K=129), with larger values to search after.
std::string twoConsumerRing() {
  std::string text = R"(@cake.schedule(target="sm_90a")
def gemm(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2)
    smem_b = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    acc2   = lm.regs(shape=(64, 64), dtype=lm.f32)
    producer  = lm.role(warps=[0])
    consumer  = lm.role(warps=[4, 5, 6, 7])
    consumer2 = lm.role(warps=[8, 9, 10, 11])
    full  = lm.barrier(count=2, prod=[producer], cons=[consumer, consumer2], init_count=1)
    empty = lm.barrier(count=2, prod=[consumer, consumer2], cons=[producer], init_count=2)
    with producer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k), iter=k, barrier=full)
)";
  for (const char* role_acc : {"consumer:acc", "consumer2:acc2"}) {
    const std::string ra = role_acc, role = ra.substr(0, ra.find(':')), acc = ra.substr(ra.find(':') + 1);
    text += "    with " + role + ":\n        for k in lm.range(0, lm.cdiv(K, 64)):\n"
            "            lm.wait(full, iter=k)\n            lm.mma(" + acc + ", smem_a[k], smem_b[k], init=(k == 0))\n"
            "            lm.mma_commit()\n            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=k)\n";
  }
  return text;
}

// --engine z3 keeps its own cap (kZ3AfterFinding) and --engine both,
// which compares the engines on every value, has none: a cap that stops the
// explicit engine's search stops neither.
TEST(AfterFinding, OnlyTheExplicitEngineAloneHasTheCap) {
  auto mod = compile(twoConsumerRing());
  ASSERT_FALSE(mod.schedules.empty());
  const Result x = check(mod.schedules[0], 1);
  EXPECT_NE(stopped(x), nullptr) << report(x);
  for (auto engine : {checks::SyncEngine::Z3, checks::SyncEngine::Both}) {
    const Result r = check(mod.schedules[0], 1, engine);
    EXPECT_NE(firstCounterexample(r), nullptr) << report(r);
    EXPECT_EQ(stopped(r), nullptr) << report(r);
  }
}

// The bounded check's own budget ending the search after a finding (no cap
// here) is said the same way: the rules found stand, the values left are
// named.
TEST(AfterFinding, TheBoundedBudgetEndingTheSearchIsSaidToo) {
  auto mod = compile(corpusText(kBroken));
  ASSERT_FALSE(mod.schedules.empty());
  Result r;
  checks::CheckOptions o;
  o.proof_timeout_ms = 0;
  o.timeout_ms = 600000;
  o.after_finding_work_ms = 0;
  o.bounded_timeout_ms = 5;  // 5e6 units: past the first finding, short of the last value
  checks::runModelChecker(mod.schedules[0], o, r.sink, r.verdicts);
  ASSERT_NE(firstCounterexample(r), nullptr) << report(r);
  const checks::PropertyVerdict* v = stopped(r);
  ASSERT_NE(v, nullptr) << report(r);
  EXPECT_NE(v->detail.find("the bounded check's work budget"), std::string::npos) << v->detail;
}

}  // namespace after_finding
