// The proof's budget (encoder/proof_budget.h): work, not time, decides;
// a budget used up is "unknown", never "proved"; the verdict does not
// change when another thread competes for the CPU. The same for the model
// checker's bounded check (BoundedBudget.*: its explorations, verdicts and
// counterexamples).
#include "tests/common/build_paths.h"
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "checks/model_check.h"
#include "encoder/proof_budget.h"
#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "ir/frontend.h"
#include "test_util.h"

using namespace cake;
namespace fs = std::filesystem;

namespace {

std::optional<ir::Module> budgetTestModule(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile((fs::path(CAKE_SOURCE_DIR) / rel).string(), err);
  if (!file) return std::nullopt;
  ir::DiagnosticSink sink;
  return ir::compileModule(file, {}, sink);
}

encoder::ModelCheckResult proveWithWork(const ir::Schedule& s, uint64_t work) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.work = work;
  o.timeout_ms = cake::testing::kNoWallClockMs;  // the safety limit never decides here
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

// The work units a proof reports ("... [N work units]").
uint64_t workOf(const std::string& engine) {
  const size_t at = engine.rfind('[');
  if (at == std::string::npos) return 0;
  return std::strtoull(engine.c_str() + at + 1, nullptr, 10);
}

// Threads that spin until destroyed: load on every core of a small machine.
class BusyThreads {
 public:
  explicit BusyThreads(int n) {
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        volatile uint64_t x = 0;
        while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
      });
  }
  ~BusyThreads() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace

TEST(ProofBudget, WorkIsCountedAndRunsOut) {
  encoder::ProofBudget b(1000, 0);
  EXPECT_EQ(b.left(), 1000u);
  EXPECT_EQ(b.exhausted(), "");
  b.charge(1000);
  EXPECT_FALSE(b.workOut());  // exactly the budget is within it
  EXPECT_EQ(b.left(), 0u);
  b.charge(1);
  EXPECT_TRUE(b.workOut());
  EXPECT_NE(b.exhausted().find("work budget of 1000 units used up"), std::string::npos) << b.exhausted();

  encoder::ProofBudget none(0, 0);  // no cap, no wall clock
  none.charge(UINT64_MAX / 2);
  EXPECT_EQ(none.left(), UINT64_MAX);
  EXPECT_EQ(none.exhausted(), "");
  EXPECT_EQ(none.wallLeftMs(), UINT_MAX);

  EXPECT_EQ(encoder::ProofBudget::unitsFor(0), 0u);
  EXPECT_EQ(encoder::ProofBudget::unitsFor(2), 2 * encoder::ProofBudget::kUnitsPerSecond);
  EXPECT_GE(encoder::ProofBudget::rlimitFor(0), 1u);
}

TEST(ProofBudget, WallClockSafetyLimitEndsIt) {
  encoder::ProofBudget b(0, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(b.wallOut());
  EXPECT_NE(b.exhausted().find("wall-clock safety limit"), std::string::npos) << b.exhausted();
  EXPECT_EQ(b.wallLeftMs(), 1u);
}

// The standard mainloop needs some work W: with W it is proved, with less
// it is unknown (never proved), and both answers, and the work counted,
// stay the same with two busy threads competing for the two cores.
TEST(ProofBudget, VerdictDependsOnWorkNotLoad) {
  auto mod = budgetTestModule("corpus/gemm/sm90_ws_4stage.cake");
  ASSERT_TRUE(mod);
  const ir::Schedule& s = mod->schedules.at(0);
  encoder::ModelCheckResult free = proveWithWork(s, 0);
  ASSERT_EQ(free.outcome, encoder::Outcome::Proved) << free.detail;
  const uint64_t W = workOf(free.engine);
  ASSERT_GT(W, 0u) << free.engine;
  std::cout << "[ proof work of sm90_ws_4stage: " << W << " units, " << free.seconds << " s wall ]\n";

  encoder::ModelCheckResult exact = proveWithWork(s, W);
  EXPECT_EQ(exact.outcome, encoder::Outcome::Proved) << exact.detail;
  EXPECT_EQ(workOf(exact.engine), W);
  encoder::ModelCheckResult short_ = proveWithWork(s, W / 2);
  EXPECT_EQ(short_.outcome, encoder::Outcome::Unknown) << short_.engine;
  EXPECT_NE(short_.detail.find("work budget of"), std::string::npos) << short_.detail;

  BusyThreads busy(2);
  encoder::ModelCheckResult loaded = proveWithWork(s, W);
  EXPECT_EQ(loaded.outcome, encoder::Outcome::Proved) << loaded.detail;
  EXPECT_EQ(loaded.engine, exact.engine);
  encoder::ModelCheckResult loaded_short = proveWithWork(s, W / 2);
  EXPECT_EQ(loaded_short.outcome, encoder::Outcome::Unknown);
  EXPECT_EQ(loaded_short.detail, short_.detail);
}

// A budget used up is unknown for every budget below the work needed:
// never proved, and never a violation (the schedule is correct).
TEST(ProofBudget, EveryShortBudgetIsUnknown) {
  auto mod = budgetTestModule("corpus/gemm/sm90_ws_4stage.cake");
  ASSERT_TRUE(mod);
  const ir::Schedule& s = mod->schedules.at(0);
  const uint64_t W = workOf(proveWithWork(s, 0).engine);
  ASSERT_GT(W, 0u);
  for (uint64_t work : {uint64_t{1}, W / 100, W / 10, W / 3, W - W / 20}) {
    encoder::ModelCheckResult r = proveWithWork(s, std::max<uint64_t>(work, 1));
    EXPECT_EQ(r.outcome, encoder::Outcome::Unknown) << work << ": " << r.engine;
    EXPECT_NE(r.detail.find("work budget of"), std::string::npos) << work << ": " << r.detail;
  }
}

// ---------------------------------------------------------------- the bounded check

namespace {

// An explicit exploration of sm90_ws_4stage with K = 64 * k_tiles, charged
// to a budget of `work` units (0: no cap) without a wall-clock limit.
struct BudgetExplored {
  encoder::ModelCheckResult r;
  uint64_t used = 0;
};
BudgetExplored exploreWithWork(const ir::Schedule& s, int64_t k_tiles, uint64_t work) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = s.params[p].name == "K" ? 64 * k_tiles : 64;
  std::string err;
  auto sys = encoder::buildSystem(s, b, s.target, &err);
  EXPECT_TRUE(sys) << err;
  if (!sys) return {};
  encoder::ProofBudget budget(work, 0);
  encoder::ExploreOptions eo;
  eo.budget = &budget;
  BudgetExplored out;
  out.r = encoder::explore(*sys, eo);
  out.used = budget.used();
  return out;
}

// The model checker's verdicts and findings (rule, message, every trace
// step) as one text, to compare two runs.
std::string modelCheckText(const ir::Schedule& s, unsigned bounded_ms, unsigned wall_ms) {
  checks::CheckOptions o;
  o.proof_timeout_ms = 0;  // the bounded check alone
  o.bounded_timeout_ms = bounded_ms;
  o.timeout_ms = wall_ms;
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::runModelChecker(s, o, sink, verdicts);
  std::string out;
  for (const auto& v : verdicts)
    out += fmt::format("{}: {}: {}\n", v.property, checks::verdictName(v.kind), v.detail);
  for (const ir::Finding& f : sink.findings()) {
    out += fmt::format("{} line {}: {} ({} steps)\n", f.rule, f.range.line, f.message, f.trace.size());
    for (const ir::TraceStep& t : f.trace) out += fmt::format("  {} {} {} {}\n", t.role, t.instance, t.op, t.event);
  }
  return out;
}

}  // namespace

// An exploration needs some work W: with W it passes, with W/2 it is
// unknown (never a pass), and the outcome, detail, states and work counted
// are the same with two busy threads competing for the two cores.
TEST(BoundedBudget, ExplorationIsCutByWorkNotLoad) {
  auto mod = budgetTestModule("corpus/gemm/sm90_ws_4stage.cake");
  ASSERT_TRUE(mod);
  const ir::Schedule& s = mod->schedules.at(0);
  const int64_t kTiles = 200;  // thousands of states: the cut falls between the checks every 256 states
  const BudgetExplored free = exploreWithWork(s, kTiles, 0);
  ASSERT_EQ(free.r.outcome, encoder::Outcome::Pass) << free.r.detail;
  const uint64_t W = free.used;
  ASSERT_GT(free.r.states, 1000u);  // cut in the middle, not at the first check
  std::cout << "[ bounded work of sm90_ws_4stage, " << kTiles << " k-tiles: " << W << " units, " << free.r.states
            << " states, " << free.r.seconds << " s wall ]\n";

  const BudgetExplored exact = exploreWithWork(s, kTiles, W);
  EXPECT_EQ(exact.r.outcome, encoder::Outcome::Pass) << exact.r.detail;
  EXPECT_EQ(exact.used, W);
  const BudgetExplored short_ = exploreWithWork(s, kTiles, W / 2);
  EXPECT_EQ(short_.r.outcome, encoder::Outcome::Unknown);
  // no seconds in the detail: the same text at any load
  EXPECT_EQ(short_.r.detail, fmt::format("work budget of {} units used up (explicit search, after {} states)", W / 2,
                                         short_.r.states));

  BusyThreads busy(2);
  const BudgetExplored loaded = exploreWithWork(s, kTiles, W);
  EXPECT_EQ(loaded.r.outcome, encoder::Outcome::Pass) << loaded.r.detail;
  EXPECT_EQ(loaded.used, W);
  EXPECT_EQ(loaded.r.states, free.r.states);
  const BudgetExplored loaded_short = exploreWithWork(s, kTiles, W / 2);
  EXPECT_EQ(loaded_short.r.outcome, encoder::Outcome::Unknown);
  EXPECT_EQ(loaded_short.r.detail, short_.r.detail);
  EXPECT_EQ(loaded_short.r.states, short_.r.states);
  EXPECT_EQ(loaded_short.used, short_.used);
}

// The model checker's whole bounded check: a correct schedule is "checked"
// with its default budget and "unknown" with a tiny one (never a pass); a
// broken one shows the same finding with the same shortened trace. Every
// verdict, detail and trace is the same with two busy threads competing.
TEST(BoundedBudget, VerdictDependsOnWorkNotLoad) {
  auto good = budgetTestModule("corpus/gemm/sm90_ws_4stage.cake");
  auto bad = budgetTestModule("corpus/bugs/sync.race/sm90_release_before_mma_retired.cake");
  ASSERT_TRUE(good && bad);
  const unsigned wall = cake::testing::kNoWallClockMs;  // the safety limit never decides here
  const unsigned deflt = checks::CheckOptions{}.bounded_timeout_ms;
  const std::string checked = modelCheckText(good->schedules.at(0), deflt, wall);
  EXPECT_NE(checked.find("sync: checked: "), std::string::npos) << checked;
  const std::string tiny = modelCheckText(good->schedules.at(0), 1, wall);  // 1 ms: 1e6 units
  EXPECT_NE(tiny.find("sync: unknown: "), std::string::npos) << tiny;
  EXPECT_NE(tiny.find("work budget of 1000000 units used up"), std::string::npos) << tiny;
  const std::string found = modelCheckText(bad->schedules.at(0), deflt, wall);
  EXPECT_NE(found.find("sync.race: counterexample"), std::string::npos) << found;

  BusyThreads busy(2);
  EXPECT_EQ(modelCheckText(good->schedules.at(0), deflt, wall), checked);
  EXPECT_EQ(modelCheckText(good->schedules.at(0), 1, wall), tiny);
  EXPECT_EQ(modelCheckText(bad->schedules.at(0), deflt, wall), found);
}

// The wall clock (--timeout) stays a safety limit: reached, the verdict is
// unknown and says so, never a pass.
TEST(BoundedBudget, WallClockSafetyLimitIsUnknown) {
  auto mod = budgetTestModule("corpus/cluster/sm90_multicast_b.cake");  // about a second of bounded check
  ASSERT_TRUE(mod);
  const std::string text = modelCheckText(mod->schedules.at(0), checks::CheckOptions{}.bounded_timeout_ms, 1);
  EXPECT_NE(text.find("sync: unknown: "), std::string::npos) << text;
  EXPECT_NE(text.find("wall-clock safety limit of 0.0 s reached"), std::string::npos) << text;
}

// ---------------------------------------------------------------- persistent kernels

namespace {

encoder::ModelCheckResult provePersistent(const ir::Schedule& s, uint64_t work, bool share_layout,
                                          bool memo_sets = true, bool half_shift = true,
                                          bool half_shift_ring = true, bool phase_windows = true,
                                          bool settled = true) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.work = work;
  o.share_layout = share_layout;
  o.memo_sets = memo_sets;
  o.half_shift = half_shift;
  o.half_shift_ring = half_shift_ring;
  o.phase_windows = phase_windows;
  o.settled_resolutions = settled;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

}  // namespace

// The explorations of a persistent kernel (one per short tile length, then
// the longer tiles) share one layout of the combined program and charge
// what their reduction did (docs/z3.md "One layout for every tile length"):
// the same states and verdict as a layout per exploration, less work (the
// layout is charged once), the same work at any load, and a budget below it
// is unknown.
TEST(ProofBudget, PersistentExplorationsShareTheirLayout) {
  auto mod = budgetTestModule("corpus/reduction/sm100_col_sum_persistent.cake");
  ASSERT_TRUE(mod);
  const ir::Schedule& s = mod->schedules.at(0);
  encoder::ModelCheckResult shared = provePersistent(s, 0, true);
  ASSERT_EQ(shared.outcome, encoder::Outcome::Proved) << shared.detail;
  ASSERT_NE(shared.engine.find("lap induction over tiles and K"), std::string::npos) << shared.engine;
  ASSERT_NE(shared.engine.find("one by one"), std::string::npos) << shared.engine;  // several explorations
  encoder::ModelCheckResult own = provePersistent(s, 0, false);
  ASSERT_EQ(own.outcome, encoder::Outcome::Proved) << own.detail;
  EXPECT_EQ(shared.states, own.states);
  const uint64_t W = workOf(shared.engine);
  std::cout << "[ sm100_col_sum_persistent: " << shared.states << " states, " << W << " units with one layout, "
            << workOf(own.engine) << " with one per exploration ]\n";
  EXPECT_LT(W, workOf(own.engine));

  BusyThreads busy(2);
  encoder::ModelCheckResult loaded = provePersistent(s, W, true);
  EXPECT_EQ(loaded.outcome, encoder::Outcome::Proved) << loaded.detail;
  EXPECT_EQ(loaded.engine, shared.engine);
  encoder::ModelCheckResult short_ = provePersistent(s, W - W / 20, true);
  EXPECT_EQ(short_.outcome, encoder::Outcome::Unknown) << short_.engine;
  EXPECT_NE(short_.detail.find("work budget of"), std::string::npos) << short_.detail;
}

// The reducer keeps the persistent sets of every state key it met, across
// states and across the explorations of one layout (docs/z3.md "Persistent
// sets kept for every key"): the same sets, so the same states and verdict
// as keeping the last key's only, with fewer window computations counted.
TEST(ProofBudget, PersistentSetsKeptForEveryKey) {
  auto mod = budgetTestModule("corpus/reduction/sm100_col_sum_persistent.cake");
  ASSERT_TRUE(mod);
  const ir::Schedule& s = mod->schedules.at(0);
  encoder::ModelCheckResult every = provePersistent(s, 0, true, true);
  ASSERT_EQ(every.outcome, encoder::Outcome::Proved) << every.detail;
  encoder::ModelCheckResult last = provePersistent(s, 0, true, false);
  ASSERT_EQ(last.outcome, encoder::Outcome::Proved) << last.detail;
  EXPECT_EQ(every.states, last.states);
  std::cout << "[ sm100_col_sum_persistent: " << every.states << " states, " << workOf(every.engine)
            << " units with every key's sets kept, " << workOf(last.engine) << " with the last key's ]\n";
  EXPECT_LT(workOf(every.engine), workOf(last.engine));
  // the persistent-kernel test kernels: the same states both ways
  auto ws = budgetTestModule("corpus/gemm/sm90_persistent_ws.cake");
  ASSERT_TRUE(ws);
  const ir::Schedule& w = ws->schedules.at(0);
  encoder::ModelCheckResult a = provePersistent(w, 0, true, true);
  encoder::ModelCheckResult b = provePersistent(w, 0, true, false);
  EXPECT_EQ(a.outcome, b.outcome) << a.detail << " / " << b.detail;
  EXPECT_EQ(a.states, b.states);
  EXPECT_LT(workOf(a.engine), workOf(b.engine));
}

namespace {

// The streamed k-means file's proof with the parameters bound to values
// its lm.assume facts allow (K a multiple of 128, D = 128).
encoder::ModelCheckResult proveKmeans(const ir::Schedule& s, uint64_t work, bool symmetry, bool phase_windows = true,
                                      bool local_first = true, bool settled = true, bool narrow = true) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) {
    const std::string& n = s.params[p].name;
    b.params[p] = n == "K" || n == "D" ? 128 : n == "B" ? 1 : 256;
  }
  encoder::TripProofOptions o;
  o.work = work;
  o.symmetry = symmetry;
  o.phase_windows = phase_windows;
  o.local_first = local_first;
  o.settled_resolutions = settled;
  o.narrow_ring_window = narrow;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}


std::optional<ir::Module> compileText(const std::string& t) {
  ir::DiagnosticSink sink;
  return ir::compileModule(ir::makeSourceFile("edited.cake", t), {}, sink);
}

// Each edit (which must apply) makes a broken form of `text`, which `prove`
// (a proof with a reduction under test) must not prove.
void expectEditsNotProved(const std::string& text, const std::vector<std::pair<std::string, std::string>>& edits,
                          const std::function<encoder::ModelCheckResult(const ir::Schedule&)>& prove) {
  for (const auto& [from, to] : edits) {
    std::string t = text;
    const size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    auto m = compileText(t);
    ASSERT_TRUE(m) << from;
    encoder::ModelCheckResult r = prove(m->schedules.at(0));
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << from << "\n" << r.engine;
    std::cout << "[ broken form: " << r.detail.substr(0, 160) << " ]\n";
  }
}

}  // namespace

// Two consumer instances of one role that the exploration cannot tell apart
// are explored once per unordered pair of their states (docs/z3.md
// "Interchangeable processes"): the streamed k-means persistent kernel is
// proved within the default budget of 3e9 units with the pair found, and
// was not without it (it needed about 4.0e9; with windows that stop at a
// wait's own phase, docs/z3.md, it fits without the pair too, with more
// states and units than with it, so "without" is now without both). Broken
// forms of it, whose bugs need
// the two consumers' interleaving or one consumer's own order, are not
// proved with the reduction.
TEST(ProofBudget, InterchangeableProcessesExploredOnce) {
  const std::string rel = "corpus/kmeans/sm90_assign_streamed_centroids.cake";
  const std::string text = cake::testing::corpusText(rel);
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  const uint64_t kDefault = 3'000'000'000;
  encoder::ModelCheckResult sym = proveKmeans(mod->schedules.at(0), kDefault, true);
  ASSERT_EQ(sym.outcome, encoder::Outcome::Proved) << sym.detail;
  EXPECT_LE(workOf(sym.engine), kDefault);
  // (and without settled resolutions, docs/z3.md "Settled resolutions",
  // with which it fits the default budget with neither; and at the usual
  // ring window: the narrow first window, docs/z3.md "A narrower first ring
  // window for the persistent proof", fits the default budget with none
  // of the three)
  encoder::ModelCheckResult both =
      proveKmeans(mod->schedules.at(0), kDefault, false, false, true, false, /*narrow=*/false);
  EXPECT_EQ(both.outcome, encoder::Outcome::Unknown) << both.detail;
  EXPECT_NE(both.detail.find("work budget"), std::string::npos) << both.detail;
  encoder::ModelCheckResult nosym = proveKmeans(mod->schedules.at(0), 0, false);
  ASSERT_EQ(nosym.outcome, encoder::Outcome::Proved) << nosym.detail;
  EXPECT_LT(sym.states, nosym.states);
  EXPECT_LT(workOf(sym.engine), workOf(nosym.engine));
  std::cout << "[ streamed k-means: " << sym.states << " states, " << workOf(sym.engine)
            << " units with the interchangeable consumers; without: " << both.detail << " ]\n";
  // broken forms (each edit must apply)
  const std::vector<std::pair<std::string, std::string>> edits = {
      // one consumer's release lets the producer overwrite the points the other still reads
      {"x_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2",
       "x_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1"},
      {"c_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2",
       "c_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1"},
      // the centroid stage released before the wgmma that reads it retired
      {"                lm.mma_wait(pending=0)\n                # the norms were read through the generic proxy; the "
       "next TMA writes the slot\n                lm.fence_proxy()\n                for c in lm.range(0, 2):\n"
       "                    lm.arrive(c_empty, iter=2 * s + c)\n",
       "                lm.fence_proxy()\n                for c in lm.range(0, 2):\n"
       "                    lm.arrive(c_empty, iter=2 * s + c)\n                lm.mma_wait(pending=0)\n"},
      // the norms read through the generic proxy, then overwritten by TMA without a fence
      {"                lm.fence_proxy()\n", ""},
      // the consumer does not wait for the second points chunk
      {"            for c in lm.range(0, 2):\n                lm.wait(x_full, iter=2 * t + c)\n",
       "            lm.wait(x_full, iter=2 * t)\n"},
  };
  expectEditsNotProved(text, edits, [](const ir::Schedule& b) { return proveKmeans(b, 0, true); });
}

// The consumers of the persistent GEMM stage their epilogue in
// `smem_c[2 * lm.instance() + t % 2]`: view indices that differ between the
// two instances, in bytes no other process accesses, where no rule reads
// them (docs/z3.md "Interchangeable processes"). The pair is found: the same
// verdict with fewer states. Its broken forms are not proved.
TEST(ProofBudget, InterchangeableProcessesWithPrivateStages) {
  const std::string text = cake::testing::corpusText("corpus/gemm/sm90_persistent_ws.cake");
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  encoder::ModelCheckResult sym = proveKmeans(mod->schedules.at(0), 0, true);
  encoder::ModelCheckResult both = proveKmeans(mod->schedules.at(0), 0, false);
  ASSERT_EQ(sym.outcome, encoder::Outcome::Proved) << sym.detail;
  ASSERT_EQ(both.outcome, encoder::Outcome::Proved) << both.detail;
  EXPECT_LT(sym.states, both.states);
  EXPECT_LT(workOf(sym.engine), workOf(both.engine));
  std::cout << "[ sm90_persistent_ws: " << sym.states << " states / " << workOf(sym.engine) << " units with the pair, "
            << both.states << " / " << workOf(both.engine) << " without ]\n";
  const std::vector<std::pair<std::string, std::string>> edits = {
      // one staging slot per instance: the store of the tile before may still read it
      {"s = 2 * lm.instance() + t % 2", "s = 2 * lm.instance()"},
      // both instances stage in the same slots
      {"s = 2 * lm.instance() + t % 2", "s = t % 2"},
      // the store reads the staged tile before the generic writes are fenced
      {"            lm.fence_proxy()\n", ""},
      // one consumer's release frees the slot the other still reads
      {"init_count=2, pipeline=pipe", "init_count=1, pipeline=pipe"},
  };
  expectEditsNotProved(text, edits, [](const ir::Schedule& b) { return proveKmeans(b, 0, true); });
}

// The persistent GEMM's consumers stage their epilogue in shared memory
// no other process accesses: the copies, fences, TMA stores and their
// commits and waits there are *local* steps, tried first as seeds of the
// reducer's persistent sets (docs/z3.md "Local steps first"). The same
// verdict with less work; broken forms whose bug lies in those local steps
// (or next to them) are not proved.
TEST(ProofBudget, LocalStepsFirst) {
  const std::string text = cake::testing::corpusText("corpus/gemm/sm90_persistent_ws.cake");
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  encoder::ModelCheckResult first = proveKmeans(mod->schedules.at(0), 0, true);
  encoder::ModelCheckResult plain = proveKmeans(mod->schedules.at(0), 0, true, true, false);
  ASSERT_EQ(first.outcome, encoder::Outcome::Proved) << first.detail;
  ASSERT_EQ(plain.outcome, encoder::Outcome::Proved) << plain.detail;
  EXPECT_LT(workOf(first.engine), workOf(plain.engine));
  std::cout << "[ sm90_persistent_ws: " << first.states << " states / " << workOf(first.engine)
            << " units with local steps first, " << plain.states << " / " << workOf(plain.engine) << " without ]\n";
  const std::vector<std::pair<std::string, std::string>> edits = {
      // the store reads the staged tile before the generic writes are fenced
      {"            lm.fence_proxy()\n", ""},
      // one staging slot per instance: the store of the tile before may still read it
      {"s = 2 * lm.instance() + t % 2", "s = 2 * lm.instance()"},
  };
  expectEditsNotProved(text, edits, [](const ir::Schedule& b) { return proveKmeans(b, 0, true); });
}

// A block end whose resolution narrows none of the unknowns (the tile
// count's lower bound already past the next tile, the tile's end already
// fixed by the process that left its K loop first) commutes with every
// other step: the unknowns leave its footprint (docs/z3.md "Settled
// resolutions"). The persistent GEMM's consumers end every K iteration and
// tile behind the producer, so their block ends no longer pull the
// producer into each persistent set: the same verdict with far fewer
// states. Broken forms whose bugs lie at the tile and loop boundaries are
// not proved with the rule.
TEST(ProofBudget, SettledResolutionsCommute) {
  const std::string text = cake::testing::corpusText("corpus/gemm/sm90_persistent_ws.cake");
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  encoder::ModelCheckResult settled = proveKmeans(mod->schedules.at(0), 0, true);
  encoder::ModelCheckResult every = proveKmeans(mod->schedules.at(0), 0, true, true, true, false);
  ASSERT_EQ(settled.outcome, encoder::Outcome::Proved) << settled.detail;
  ASSERT_EQ(every.outcome, encoder::Outcome::Proved) << every.detail;
  EXPECT_LT(2 * settled.states, every.states);
  EXPECT_LT(workOf(settled.engine), workOf(every.engine));
  std::cout << "[ sm90_persistent_ws: " << settled.states << " states / " << workOf(settled.engine)
            << " units with settled resolutions, " << every.states << " / " << workOf(every.engine)
            << " without ]\n";
  const std::vector<std::pair<std::string, std::string>> edits = {
      // the store of two tiles back may still read the staging slot
      {"lm.tma_store_wait(pending=1)", "lm.tma_store_wait(pending=2)"},
      // the producer refills a slot one lap before both consumers released it
      {"lm.wait(empty, iter=it - 4)", "lm.wait(empty, iter=it - 5)"},
      // the slot released before the wgmma that reads it retired
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n",
       "                lm.arrive(empty, iter=it)\n                lm.mma_wait(pending=0)\n"},
      // the last tile's store still in flight when the consumer exits
      {"\n        lm.tma_store_wait(pending=0)", "\n"},
  };
  expectEditsNotProved(text, edits, [](const ir::Schedule& b) { return proveKmeans(b, 0, true); });
}

// Ping-pong's consumer 0 runs the even tiles and consumer 1 the odd ones:
// the state one tile back with the two consumers, the two `order` slots and
// their `smem_c` stages exchanged has the same futures (docs/z3.md "A shift
// by one tile that permutes the processes"), and so has the state dx < 4
// ring positions back with the ring's slots and stages rotated by dx
// (docs/z3.md "Ring shifts by part of the ring period"). With both the
// file is proved with fewer states and work units than with the first only,
// and with that one with fewer than with neither (no work cap; with both it
// fits the default budget of 3e9 units: SlowPingPongWithinTheDefaultBudget
// below). Broken forms
// whose bugs need the alternation or the ring's rotation are not proved
// with the shifts.
TEST(ProofBudget, SlowPingPongShiftByOneTile) {
  const std::string text = cake::testing::corpusText("corpus/gemm/sm90_pingpong.cake");
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  encoder::ModelCheckResult ring = provePersistent(mod->schedules.at(0), 0, true, true, true, true);
  ASSERT_EQ(ring.outcome, encoder::Outcome::Proved) << ring.detail;
  encoder::ModelCheckResult half = provePersistent(mod->schedules.at(0), 0, true, true, true, false);
  ASSERT_EQ(half.outcome, encoder::Outcome::Proved) << half.detail;
  encoder::ModelCheckResult whole = provePersistent(mod->schedules.at(0), 0, true, true, false, false);
  ASSERT_EQ(whole.outcome, encoder::Outcome::Proved) << whole.detail;
  EXPECT_LT(ring.states, half.states);
  EXPECT_LT(workOf(ring.engine), workOf(half.engine));
  EXPECT_LT(half.states, whole.states);
  EXPECT_LT(workOf(half.engine), workOf(whole.engine));
  std::cout << "[ ping-pong: " << ring.states << " states / " << workOf(ring.engine)
            << " units with the ring shifts by part of the period, " << half.states << " / " << workOf(half.engine)
            << " with the shift by one tile only, " << whole.states << " / " << workOf(whole.engine)
            << " without either ]\n";
  const std::vector<std::pair<std::string, std::string>> edits = {
      // no turn-taking: a consumer waits on a full phase one lap ahead of the slot
      {"            if t > 0:\n                lm.wait(order, stage=lm.instance())\n", ""},
      // a consumer releases the ring slot after the one it read
      {"lm.arrive(empty, iter=it)", "lm.arrive(empty, iter=it + 1)"},
      // a consumer releases the slot before the one it read
      {"lm.arrive(empty, iter=it)", "lm.arrive(empty, iter=it - 1)"},
      // the turn handed to itself: the other consumer never starts
      {"lm.arrive(order, stage=1 - lm.instance())", "lm.arrive(order, stage=lm.instance())"},
      // both consumers stage their epilogue in the same slot
      {"lm.copy(smem_c[lm.instance()], acc)", "lm.copy(smem_c[0], acc)"},
      // the previous store may still read the staging slot
      {"            lm.tma_store_wait(pending=0)\n            lm.copy", "            lm.copy"},
      // the ring slot released before the wgmma that reads it retired
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n",
       "                lm.arrive(empty, iter=it)\n                lm.mma_wait(pending=0)\n"},
      // the producer waits for the release of the position before the one that used its slot
      {"lm.wait(empty, iter=it - 4)", "lm.wait(empty, iter=it - 5)"},
      // the consumer reads the A stage of the next ring position
      {"lm.mma(acc, smem_a[it], smem_b[it]", "lm.mma(acc, smem_a[it + 1], smem_b[it]"},
      // the producer loads B into the stage of the position before
      {"smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it,", "smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it - 1,"},
  };
  expectEditsNotProved(text, edits, [](const ir::Schedule& b) { return provePersistent(b, 0, true, true, true); });
}

// Ping-pong's windows ran through the whole window: a wait whose parity
// passes a lap early (sync.stale-phase, which ends its run) let the window
// go on, and the supply, counted per slot and not per phase, let it pass
// every later wait on the slot. They now go on past a wait only where its
// own phase can complete (docs/z3.md "Windows that stop at a wait's own
// phase"), as in cluster proofs, and a parked wait is tested again only
// once the supply holds what its test needs: the file is proved within the
// default budget of 3e9 units (it needed 3.31e9 before), and is not without
// the rule.
TEST(ProofBudget, SlowPingPongWithinTheDefaultBudget) {
  const std::string text = cake::testing::corpusText("corpus/gemm/sm90_pingpong.cake");
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  const uint64_t kDefault = 3'000'000'000;
  encoder::ModelCheckResult phase = provePersistent(mod->schedules.at(0), kDefault, true);
  ASSERT_EQ(phase.outcome, encoder::Outcome::Proved) << phase.detail;
  EXPECT_LE(workOf(phase.engine), kDefault);
  // (without settled resolutions too: with them it fits either way,
  // docs/z3.md "Settled resolutions")
  encoder::ModelCheckResult parity =
      provePersistent(mod->schedules.at(0), kDefault, true, true, true, true, false, false);
  EXPECT_EQ(parity.outcome, encoder::Outcome::Unknown) << parity.engine;
  EXPECT_NE(parity.detail.find("work budget"), std::string::npos) << parity.detail;
  std::cout << "[ ping-pong: " << phase.states << " states / " << workOf(phase.engine)
            << " units with windows that stop at a wait's own phase; without: " << parity.detail << " ]\n";
}

// A body with no period is found so from the system for the window's
// largest trip count alone (docs/z3.md "A period seen in the window's last
// system first"): warp 0 rewrites the table k times in iteration k, so no
// iteration's body is a shifted copy of an earlier one at any window.
// Without the check the proof builds the systems for every trip count of
// windows 24, 48, 96 and 192 (then again by parity) and runs out of the
// default budget (3e9 units: "building the system for trip count 53 of
// window 192", 14 s); with it, it says why. (bnb's quantile kernel, the
// first such file, writes a slot twice an iteration and is proved since
// generations are learned per slot and process: docs/z3.md "Generations per
// slot".)
TEST(ProofBudget, NoPeriodIsSeenBeforeTheWindowIsBuilt) {
  // the table of kTableReadEveryIteration, rewritten k times in iteration k
  const std::string triangular = cake::testing::replace(
      cake::testing::kTableReadEveryIteration, "        lm.sync(cta)\n        for k in lm.range(0, K):\n",
      "        for k in lm.range(0, K):\n            if w == 0:\n                for j in lm.range(0, k):\n"
      "                    lm.fill(v, 1)\n                    lm.copy(tab[0], v)\n            lm.sync(cta)\n");
  ASSERT_NE(triangular, cake::testing::kTableReadEveryIteration);
  ir::Module mod = cake::testing::compile(triangular);
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.at(0);
  for (uint64_t work : {uint64_t{3'000'000'000}, uint64_t{300'000'000}}) {
    encoder::ModelCheckResult r = proveWithWork(s, work);
    EXPECT_EQ(r.outcome, encoder::Outcome::Unknown) << work << ": " << r.engine;
    EXPECT_NE(r.detail.find("no steady period"), std::string::npos) << work << ": " << r.detail;
    EXPECT_EQ(r.detail.find("work budget"), std::string::npos) << work << ": " << r.detail;
  }
  // a body with a period is still proved (the check skips no window that
  // findPeriod would accept; bench/proof_coverage.sh over the corpus too)
  auto good = budgetTestModule("corpus/gemm/sm90_ws_4stage.cake");
  ASSERT_TRUE(good);
  EXPECT_EQ(proveWithWork(good->schedules.at(0), 0).outcome, encoder::Outcome::Proved);
}

TEST(ProofBudget, LapExplorationChargesItsWindows) {
  // docs/z3.md "The lap exploration's windows charged": quack's lap
  // exploration (7 processes, 288 atoms, states of about 900 words) spends
  // its CPU in the reducer's windows; charged only per state and program
  // instruction, it reached the state cap (288,330 states, the 1,024 MiB
  // memory cap) after 1.1e9 units and 12.8 s of CPU. With the windows'
  // operations charged, the work budget ends it first.
  auto quack = budgetTestModule("corpus/bugs/sync.deadlock/quack_sm100_epi_load_barrier_two_warps_fixed.cake");
  ASSERT_TRUE(quack);
  const encoder::ModelCheckResult r = proveWithWork(quack->schedules.at(0), 3'000'000'000);
  EXPECT_NE(r.outcome, encoder::Outcome::Violation) << r.detail;
  if (r.outcome == encoder::Outcome::Unknown) {
    EXPECT_NE(r.detail.find("work budget"), std::string::npos) << r.detail;
    EXPECT_EQ(r.detail.find("state cap"), std::string::npos) << r.detail;
  }
}

namespace {

// A persistent proof under the default work budget of 3e9 units, with or
// without one tail for the parts after the K loop per ring end.
encoder::ModelCheckResult proveMergingTails(const ir::Schedule& s, bool merge) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.work = 3'000'000'000;
  o.merge_post_tails = merge;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

}  // namespace

// The two-kind ping-pong's consumers skip every other tile and release the
// tile's last ring slot after the K loop (`lm.arrive(empty, iter=t *
// k_tiles + k_tiles - 1)`): a copy of the part after the K loop per ring
// end. From the instruction after that release on, the copies are one text,
// and a process that skips tiles reads no ring position after the part, so
// one copy of the rest serves every ring end (docs/z3.md "One tail for the
// parts after the K loop"). Before, a consumer in its epilogue at a small
// ring end kept the ring shift from applying while the other consumer's
// long tile ran on: the window grew to 48 ring positions and the default
// budget was used up. Now the file is proved within it. Its broken twin
// and broken forms whose bugs lie in that tail (each found by the bounded
// check: `cake check` on the edited file) are not proved.
TEST(ProofBudget, PostTailsMergedAcrossRingEnds) {
  const std::string rel = "corpus/bugs/sync.race/sm90_pingpong_tail64_copy_before_retire_fixed.cake";
  const std::string text = cake::testing::corpusText(rel);
  ASSERT_FALSE(text.empty());
  auto mod = compileText(text);
  ASSERT_TRUE(mod);
  const encoder::ModelCheckResult merged = proveMergingTails(mod->schedules.at(0), true);
  ASSERT_EQ(merged.outcome, encoder::Outcome::Proved) << merged.detail;
  EXPECT_NE(merged.engine.find("lap induction over tiles and K"), std::string::npos) << merged.engine;
  const encoder::ModelCheckResult whole = proveMergingTails(mod->schedules.at(0), false);
  EXPECT_NE(whole.outcome, encoder::Outcome::Proved) << whole.engine;
  std::cout << "[ sm90_pingpong_tail64 fixed: " << merged.states << " states / " << workOf(merged.engine)
            << " units with one tail; without: " << whole.detail.substr(0, 120) << " ]\n";
  // the broken twin: the tail tile's epilogue copies acc before mma_wait(0)
  const std::string twin = cake::testing::corpusText("corpus/bugs/sync.race/sm90_pingpong_tail64_copy_before_retire.cake");
  ASSERT_FALSE(twin.empty());
  auto bad = compileText(twin);
  ASSERT_TRUE(bad);
  EXPECT_NE(proveMergingTails(bad->schedules.at(0), true).outcome, encoder::Outcome::Proved);
  const std::vector<std::pair<std::string, std::string>> edits = {
      // the 128x192 epilogue reuses its first staging stage while that store may still read it
      {"            lm.tma_store_wait(pending=1)\n", "            lm.tma_store_wait(pending=2)\n"},
      // the 128x64 epilogue's copy while the store of two tiles back may still read the stage
      {"            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n            lm.tma_store_wait(pending=0)\n"
       "            lm.copy(smem_c[2 * lm.instance()], acc[:, 0:64])\n            lm.fence_proxy()\n"
       "            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=2 * lm.instance())\n            "
       "lm.tma_store_commit()\n        lm.tma_store_wait(pending=0)",
       "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n"
       "            lm.copy(smem_c[2 * lm.instance()], acc[:, 0:64])\n            lm.fence_proxy()\n"
       "            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=2 * lm.instance())\n            "
       "lm.tma_store_commit()\n        lm.tma_store_wait(pending=0)"},
      // both consumers stage their 128x64 tiles in one stage
      {"            lm.copy(smem_c[2 * lm.instance()], acc[:, 0:64])\n            lm.fence_proxy()\n"
       "            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=2 * lm.instance())\n            "
       "lm.tma_store_commit()\n        lm.tma_store_wait(pending=0)",
       "            lm.copy(smem_c[0], acc[:, 0:64])\n            lm.fence_proxy()\n"
       "            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)\n            "
       "lm.tma_store_commit()\n        lm.tma_store_wait(pending=0)"},
      // the 128x192 epilogue's first copy while its store of two tiles back may still read the stage
      {"            # epilogue overlaps the other warpgroup's mainloop\n            lm.tma_store_wait(pending=0)\n",
       "            # epilogue overlaps the other warpgroup's mainloop\n            lm.tma_store_wait(pending=1)\n"},
      // the third store's generic writes without the proxy fence
      {"            lm.copy(smem_c[2 * lm.instance()], acc[:, 128:192])\n            lm.fence_proxy()\n",
       "            lm.copy(smem_c[2 * lm.instance()], acc[:, 128:192])\n"},
  };
  expectEditsNotProved(text, edits, [](const ir::Schedule& b) { return proveMergingTails(b, true); });
}

