// Differential test of the partial-order reduction: on random schedules the
// reduced exploration finds a violation exactly when the full one does, and
// every trace it reports replays to its rule.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "encoder/simulator.h"
#include "ir/frontend.h"
#include "random_schedules.h"
#include "encoder/testing/random_schedule.h"
#include "test_util.h"

using namespace cake;

namespace {

struct RunOutcome {
  bool violation = false;
  std::set<std::string> rules;
};

RunOutcome run(const encoder::System& sys, bool reduce, uint64_t* states) {
  encoder::ExploreOptions o;
  o.reduce = reduce;
  o.max_states = 400000;
  encoder::ModelCheckResult r = encoder::explore(sys, o);
  EXPECT_NE(r.outcome, encoder::Outcome::Unknown) << r.detail;
  *states += r.states;
  RunOutcome out;
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

// The random schedules of seeds [seed0, seed0 + seeds), each explored with
// and without the reduction for every K up to its max_k.
void reducedFindsWhatFullFinds(uint64_t seed0, uint64_t seeds) {
  int schedules = 0, systems = 0, same_rules = 0, buggy = 0;
  uint64_t full_states = 0, reduced_states = 0;
  std::map<std::string, int> rule_hits;
  for (uint64_t seed = seed0; seed < seed0 + seeds; ++seed) {
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
      RunOutcome full = run(*sys, false, &full_states);
      RunOutcome red = run(*sys, true, &reduced_states);
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

}  // namespace

TEST(PorDiff, ReducedFindsWhatFullFinds) { reducedFindsWhatFullFinds(1, 300); }

// The long form (label `slow`): ten times the seeds, none shared with the short form.
TEST(PorDiff, SlowReducedFindsWhatFullFinds) { reducedFindsWhatFullFinds(301, 3000); }

// The same comparison on the corpus at its covering values (label `slow`:
// full interleavings of every hand-written schedule).
#include <filesystem>
#include "checks/model_check.h"
TEST(PorDiff, SlowCorpus) {
  namespace fs = std::filesystem;
  int systems = 0, skipped = 0, same = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(CAKE_SOURCE_DIR) / "corpus")) {
    if (e.path().extension() != ".cake" || e.path().string().find("/mutants/") != std::string::npos) continue;
    std::string err;
    auto file = ir::readSourceFile(e.path().string(), err);
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(file, {}, sink);
    if (!mod) continue;
    for (const auto& s : mod->schedules)
      for (const auto& b : checks::coveringBindings(s)) {
        auto sys = encoder::buildSystem(s, b, s.target, &err);
        if (!sys) continue;
        encoder::ExploreOptions o;
        o.reduce = false;
        o.max_states = 200000;
        o.more_depth = 1000000;
        o.more_states = 1000000;
        auto full = encoder::explore(*sys, o);
        if (full.outcome == encoder::Outcome::Unknown) { ++skipped; continue; }
        o.reduce = true;
        auto red = encoder::explore(*sys, o);
        ++systems;
        ASSERT_EQ(full.outcome, red.outcome) << e.path() << " " << encoder::bindingToString(s, b);
        std::set<std::string> fr, rr;
        for (auto& v : full.violations) fr.insert(v.rule);
        for (auto& v : red.violations) rr.insert(v.rule);
        same += fr == rr;
      }
  }
  std::cout << systems << " corpus systems agree (" << same << " with equal rule sets), " << skipped
            << " too large for the full interleaving\n";
}

namespace {

// The same with named-barrier hand-offs (encoder/testing's generator:
// bar.sync / bar.arrive with counts, correct and with its bugs planted),
// looking for every rule: the verdicts and the rule sets must be equal.
// (Seed 61001's schedule #3521, a ring with two planted bugs, had a
// sync.stale-phase that only the full interleaving reached: the reduced
// set held a step that ends the run in a lost phase, cutting off the runs
// that take the consumers' wait first; docs/semantics.md section 5.)
void namedBarrierRulesMatch(uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  encoder::RandomScheduleOptions ro;
  ro.named_rate = 0.5;
  int systems = 0, violations = 0, same_rules = 0;
  uint64_t full_states = 0, reduced_states = 0;
  for (int i = 0; i < count; ++i) {
    encoder::RandomSchedule rs = encoder::randomSchedule(rng, ro);
    std::string err;
    auto sys = encoder::buildSystem(rs.schedule, rs.binding, ir::Target::Unspecified, &err);
    if (!sys) continue;
    ++systems;
    encoder::ExploreOptions o = encoder::everyRule();
    o.max_states = 400000;
    o.timeout_ms = cake::testing::kNoWallClockMs;
    auto explore = [&](bool reduce) {
      o.reduce = reduce;
      return encoder::explore(*sys, o);
    };
    encoder::ModelCheckResult full = explore(false), red = explore(true);
    full_states += full.states;
    reduced_states += red.states;
    ASSERT_NE(full.outcome, encoder::Outcome::Unknown) << "#" << i << " " << full.detail;
    ASSERT_EQ(full.outcome, red.outcome) << "seed " << seed << " #" << i << " " << rs.description;
    violations += full.outcome == encoder::Outcome::Violation;
    std::set<std::string> fr, rr;
    for (const auto& v : full.violations) fr.insert(v.rule);
    for (const auto& v : red.violations) rr.insert(v.rule);
    EXPECT_EQ(fr, rr) << "seed " << seed << " #" << i << " " << rs.description;
    same_rules += fr == rr;
  }
  std::cout << "seed " << seed << ": " << systems << " systems (" << violations << " with violations), rule sets equal in "
            << same_rules << "; states full " << full_states << " reduced " << reduced_states << "\n";
  EXPECT_GT(violations, systems / 10);  // the planted bugs are there to be found
}

}  // namespace

TEST(PorDiff, NamedBarrierRulesMatchTheFullInterleaving) { namedBarrierRulesMatch(61001, 4000); }

// Seed 99 up to its schedule #246 (a waiter outside the reduced set that
// an arrival in it makes lost: docs/semantics.md section 5, "the other
// direction"; PorPersistence checks that schedule's sets themselves).
TEST(PorDiff, NamedBarrierRulesMatchOnSeed99) { namedBarrierRulesMatch(99, 300); }

// The long form (label `slow`): three more seeds.
TEST(PorDiff, SlowNamedBarrierRulesMatchTheFullInterleaving) {
  for (uint64_t seed : {61002, 61003, 61004}) namedBarrierRulesMatch(seed, 4000);
}
