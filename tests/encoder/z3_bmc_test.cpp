// Z3 BMC of flat Systems: the same rules as the explicit-state engine, and
// every trace replayed and confirmed by the simulator.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "encoder/testing/random_schedule.h"
#include "encoder/simulator.h"
#include "encoder/z3_engine.h"
#include "ir/frontend.h"
#include "engine_agreement.h"
#include "test_util.h"

using namespace cake;
using namespace cake::encoder;

using cake::testing::ruleSet;

namespace {

// Returns the BMC result (for further checks).
Z3BmcResult agreeOn(const System& sys) {
  Z3BmcResult z = cake::testing::bmcAgrees(sys, cake::testing::exploreEveryRule(sys));
  for (const auto& v : z.result.violations) {
    if (v.trace.empty()) continue;  // static finding
    ReplayResult rr = replay(sys, v.trace);
    EXPECT_TRUE(rr.valid) << rr.error;
    bool met = false;
    for (const auto& x : rr.violations) met = met || x.rule == v.rule;
    EXPECT_TRUE(met) << v.rule;
    // the encoding itself accepts the trace and meets the rule
    EXPECT_NE(z3ReplayTrace(sys, v.trace).find(v.rule), std::string::npos);
  }
  return z;
}

}  // namespace

TEST(Z3Bmc, CorpusKnownBad) {
  std::string path = std::string(CAKE_SOURCE_DIR) + "/corpus/bugs/sync.race/named_barrier_runahead.cake";
  std::string err;
  auto file = ir::readSourceFile(path, err);
  if (!file) GTEST_SKIP() << err;
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(file, {}, sink);
  ASSERT_TRUE(mod);
  for (const auto& s : mod->schedules) {
    Binding b;
    for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
    auto sys = buildSystem(s, b, s.target, &err);
    ASSERT_TRUE(sys) << err;
    agreeOn(*sys);
  }
}

// Arrival counts as annotated vs as landed (docs/semantics.md "Phase
// annotations"), and generic reads before a TMA refill: both engines give
// the same errors, or none.
TEST(Z3Bmc, PhaseAnnotationsResolveAlike) {
  // (init_count, iter= of the release, proxy fence after the reads, the rule expected or "")
  struct Case { const char* init; const char* arrive; bool fence; const char* rule; };
  for (const Case& c : {Case{"1", "t + 1", true, ""}, Case{"1", "t", true, ""}, Case{"2", "t", true, "sync.arrival-underflow"},
                        Case{"1", "t", false, "proxy.missing-fence"}}) {
    std::string text = cake::testing::kOneSlotHandoff;
    text.replace(text.find("init_count=1)\n    with"), 12, fmt::format("init_count={}", c.init));
    text.replace(text.find("iter=t)\n            lm.copy(Y"), 6, fmt::format("iter={}", c.arrive));
    if (!c.fence) text.replace(text.find("            lm.fence_proxy()\n"), 29, "");
    ir::Module mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    System sys = cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], {{"K", 2}}));
    Z3BmcResult z = agreeOn(sys);
    const bool error = *c.rule != 0;
    EXPECT_EQ(z.result.outcome == Outcome::Violation, error) << c.init << " " << c.arrive << " " << c.fence;
    if (error) EXPECT_EQ(ruleSet(z.result).count(c.rule), 1u) << c.rule;
  }
}

TEST(Z3Bmc, RandomSmallSchedules) {
  std::mt19937_64 rng(42);
  RandomScheduleOptions ro;
  ro.max_trips = 1;
  ro.max_stages = 2;
  for (int i = 0; i < 12; ++i) {
    cake::encoder::RandomSchedule rs = randomSchedule(rng, ro);
    std::string err;
    auto sys = buildSystem(rs.schedule, rs.binding, rs.schedule.target, &err);
    ASSERT_TRUE(sys) << err << " " << rs.description;
    SCOPED_TRACE(rs.description);
    agreeOn(*sys);
  }
}
