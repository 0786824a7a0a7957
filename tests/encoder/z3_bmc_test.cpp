// Z3 BMC of flat Systems: the same rules as the explicit-state engine, and
// every trace replayed and confirmed by the simulator.
#include <gtest/gtest.h>

#include <set>

#include "encoder/testing/random_schedule.h"
#include "encoder/simulator.h"
#include "encoder/z3_engine.h"
#include "ir/frontend.h"

using namespace cake;
using namespace cake::encoder;

namespace {

std::set<std::string> rules(const ModelCheckResult& r) {
  std::set<std::string> s;
  for (const auto& v : r.violations) s.insert(v.rule);
  return s;
}

void agreeOn(const System& sys) {
  ExploreOptions eo;  // explore everything: every rule, not only those near the first
  eo.more_depth = 1u << 30;
  eo.more_states = uint64_t(1) << 40;
  ModelCheckResult sim = explore(sys, eo);
  Z3BmcOptions o;
  o.limits.timeout_ms = 60000;
  Z3BmcResult z = bmcCheck(sys, o);
  ASSERT_FALSE(z.internal_error) << z.error;
  ASSERT_NE(z.result.outcome, Outcome::Unknown) << z.result.detail;
  EXPECT_EQ(rules(sim), rules(z.result));
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

TEST(Z3Bmc, RandomSmallSchedules) {
  std::mt19937_64 rng(42);
  RandomScheduleOptions ro;
  ro.max_trips = 1;
  ro.max_stages = 2;
  for (int i = 0; i < 12; ++i) {
    RandomSchedule rs = randomSchedule(rng, ro);
    std::string err;
    auto sys = buildSystem(rs.schedule, rs.binding, rs.schedule.target, &err);
    ASSERT_TRUE(sys) << err << " " << rs.description;
    SCOPED_TRACE(rs.description);
    agreeOn(*sys);
  }
}
