// Differential test of the partial-order reduction: on random schedules the
// reduced exploration finds a violation exactly when the full one does, and
// every trace it reports replays to its rule.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "encoder/simulator.h"
#include "ir/frontend.h"
#include "random_schedules.h"

using namespace cake;

namespace {

struct Outcome {
  bool violation = false;
  std::set<std::string> rules;
};

Outcome run(const encoder::System& sys, bool reduce, uint64_t* states) {
  encoder::ExploreOptions o;
  o.reduce = reduce;
  o.max_states = 400000;
  encoder::ModelCheckResult r = encoder::explore(sys, o);
  EXPECT_NE(r.outcome, encoder::Outcome::Unknown) << r.detail;
  *states += r.states;
  Outcome out;
  out.violation = r.outcome == encoder::Outcome::Violation;
  for (const encoder::Violation& v : r.violations) {
    out.rules.insert(v.rule);
    if (v.trace.empty()) continue;  // static finding
    encoder::ReplayResult rr = encoder::replay(sys, v.trace);
    EXPECT_TRUE(rr.valid) << rr.error;
    bool confirmed = false;
    for (const auto& x : rr.violations) confirmed |= x.rule == v.rule;
    EXPECT_TRUE(confirmed) << v.rule << " did not replay";
  }
  return out;
}

// CAKE_POR_SEEDS / CAKE_POR_SEED0 widen the search locally.
uint64_t seeds() { return getenv("CAKE_POR_SEEDS") ? std::stoull(getenv("CAKE_POR_SEEDS")) : 300; }
uint64_t seed0() { return getenv("CAKE_POR_SEED0") ? std::stoull(getenv("CAKE_POR_SEED0")) : 1; }

}  // namespace

TEST(PorDiff, ReducedFindsWhatFullFinds) {
  int schedules = 0, systems = 0, same_rules = 0, buggy = 0;
  uint64_t full_states = 0, reduced_states = 0;
  std::map<std::string, int> rule_hits;
  for (uint64_t seed = seed0(); seed < seed0() + seeds(); ++seed) {
    cake::testing::RandomSchedule rs = cake::testing::randomSchedule(seed);
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(ir::makeSourceFile(fmt::format("random{}.cake", seed), rs.text), {}, sink);
    ASSERT_TRUE(mod) << rs.text << (sink.findings().empty() ? "" : sink.findings()[0].message);
    ++schedules;
    const ir::Schedule& s = mod->schedules[0];
    for (int64_t k = 0; k <= rs.max_k; ++k) {
      encoder::Binding b;
      b.params[2] = k;
      std::string err;
      auto sys = encoder::buildSystem(s, b, ir::Target::Unspecified, &err);
      ASSERT_TRUE(sys) << err;
      ++systems;
      Outcome full = run(*sys, false, &full_states);
      Outcome red = run(*sys, true, &reduced_states);
      ASSERT_EQ(full.violation, red.violation) << "seed " << seed << " K=" << k << "\n" << rs.text;
      same_rules += full.rules == red.rules;
      buggy += full.violation;
      for (const auto& r : full.rules) ++rule_hits[r];
    }
  }
  std::cout << schedules << " schedules, " << systems << " systems (" << buggy << " with violations), rule sets equal in "
            << same_rules << "; states full " << full_states << " reduced " << reduced_states << "\n";
  for (auto& [r, n] : rule_hits) std::cout << "  " << r << ": " << n << "\n";
}
