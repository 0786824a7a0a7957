// The proof's budget (encoder/proof_budget.h): work, not time, decides;
// a budget used up is "unknown", never "proved"; the verdict does not
// change when another thread competes for the CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "encoder/proof_budget.h"
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
