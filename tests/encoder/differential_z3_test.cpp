// Differential test: Z3 BMC vs the explicit-state simulator on random small
// schedules. The `Slow*` tests (label `slow`) are the long forms on other
// seeds; bench/differential is the standalone driver for large runs
// (docs/benchmarks.md has the numbers).
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "encoder/testing/z3_differential.h"
#include "test_util.h"

using namespace cake::encoder;

namespace {

// `rlimit` 0: each Z3 BMC run has a 20 s wall clock (the long form);
// otherwise a Z3 resource limit per query and no wall clock (the answer does
// not depend on the machine's load), and at least `min_agree` of the cases
// must be decided and agree.
void bmcAgreesWithSimulator(uint64_t seed, int n, uint64_t rlimit, int min_agree) {
  RandomScheduleOptions ro;
  ro.max_trips = 1;
  ro.max_stages = 2;
  Z3BmcOptions bo;
  bo.limits.timeout_ms = rlimit ? cake::testing::kNoWallClockMs : 20000;
  bo.limits.rlimit = rlimit;
  std::ostringstream log;
  DiffStats st = runDifferential(seed, n, ro, bo, &log);
  EXPECT_EQ(st.disagree, 0) << log.str();
  EXPECT_EQ(st.internal_errors, 0) << log.str();
  EXPECT_EQ(st.not_built, 0) << log.str();
  EXPECT_GE(st.agree, min_agree) << log.str();
}

}  // namespace

// Seed 7, 16 cases. Under the 20 s wall clock one case (#8, the only
// sync.arrival-underflow among them) ran into it on every run and was not
// compared, and on a loaded machine two more (#3, #15) did too (13 agreed
// in session 32's measurement at load 15; the test asked for 12). Under 10
// million Z3 resource units per query and no wall clock, #8 is decided
// (18.6 million units in all, about 14 CPU s) and #15 gives up (it needs a
// query of more than 10 million): the same 15 of 16 on every run, about 37
// CPU s (docs/ci.md, session 32), where #8 alone spent its 20 s of wall for
// nothing before. The long form keeps the wall clock. #15, never compared
// (undecided), spent about a fifth of the test's CPU on the query it gives
// up on: the test takes the first 15 cases, every one decided and compared
// (docs/ci.md, session 35).
TEST(Differential, Z3BmcAgreesWithSimulator) { bmcAgreesWithSimulator(7, 15, 10'000'000, 15); }
TEST(Differential, SlowZ3BmcAgreesWithSimulator) { bmcAgreesWithSimulator(8, 160, 0, 160 * 3 / 4); }

// The same comparison on the simulator's own random .cake generator
// (tests/encoder/random_schedules.h: sm_80 cp.async, named barriers, aliased
// staging buffers), for K in {0, 1}.
#include <set>
#include <utility>

#include "encoder/simulator.h"
#include "ir/frontend.h"
#include "random_schedules.h"

namespace {

// A case of the text comparison: the generator's seed and the value every
// parameter takes.
using TextCase = std::pair<int, int64_t>;

// `rlimit` 0: each Z3 BMC run has a 20 s wall clock (the long form and
// seed 50); otherwise a Z3 resource limit per query and no wall clock, and
// at least `min_decided` of the cases must be decided. The cases in
// `left_out` are not run (a long form runs them).
void bmcAgreesOnTextSchedules(int first_seed, int n, uint64_t rlimit = 0, int min_decided = 1,
                              const std::set<TextCase>& left_out = {}) {
  int decided = 0;
  for (int seed = first_seed; seed < first_seed + n; ++seed) {
    auto rs = cake::testing::randomSchedule(static_cast<uint64_t>(seed));
    cake::ir::DiagnosticSink sink;
    auto mod = cake::ir::compileModule(cake::ir::makeSourceFile("random.cake", rs.text), {}, sink);
    if (!mod || mod->schedules.empty()) continue;
    const auto& s = mod->schedules[0];
    for (int64_t k = 0; k <= 1; ++k) {
      if (left_out.count({seed, k})) continue;
      Binding b;
      for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = k;
      std::string err;
      auto sys = buildSystem(s, b, s.target, &err);
      if (!sys) continue;
      ModelCheckResult sim = explore(*sys, everyRule());
      Z3BmcOptions o;
      o.limits.timeout_ms = rlimit ? 3'600'000 : 20000;
      o.limits.rlimit = rlimit;
      Z3BmcResult z = bmcCheck(*sys, o);
      EXPECT_FALSE(z.internal_error) << "seed " << seed << " K=" << k << ": " << z.error << "\n" << rs.text;
      if (sim.outcome == Outcome::Unknown || z.result.outcome == Outcome::Unknown) continue;
      ++decided;
      std::set<std::string> a, c;
      for (const auto& v : sim.violations) a.insert(v.rule);
      for (const auto& v : z.result.violations) c.insert(v.rule);
      EXPECT_EQ(a, c) << "seed " << seed << " K=" << k << "\n" << rs.text;
    }
  }
  EXPECT_GE(decided, min_decided);
}

}  // namespace

// Seeds 1 to 8, K = 0 and 1: 16 cases. Under the 20 s wall clock two of them
// (seed 2 and seed 6 at K = 1) ran into it, unknown and not compared, and
// what that cost depended on the machine's load (16 and 31 CPU s in two runs
// here, 50 s of wall in session 18's CI). Under 10 million Z3 resource units
// per query and no wall clock, seed 6 at K = 1 gives up after about 2 s and
// the other 15 are decided (seed 2 at K = 1 in about 13 s; at 5 million it
// is unknown too), the same on every run: 25 CPU s (docs/ci.md). The long
// form below keeps the wall clock.
//
// Those two cases were 17.5 of the test's 25 CPU s (session 49, docs/ci.md
// "Session 49: ctest time"): seed 6 at K = 1 compares nothing (Z3 gives
// up), and seed 2 at K = 1 finds the rules {data.uninitialized, sync.race},
// which seed 2 and seed 6 at K = 0 find too (0.8 and 1.9 s). The short form
// leaves the two out (14 cases, 13 decided: every rule the 16 compared is
// still compared); `SlowZ3BmcAgreesOnTextSchedulesOfTheShortForm` (label
// `slow`) runs all 16 as before.
const std::set<TextCase> kCostlyTextCases = {{2, 1}, {6, 1}};
TEST(Differential, Z3BmcAgreesOnTextSchedules) {
  bmcAgreesOnTextSchedules(1, 8, 10'000'000, 13, kCostlyTextCases);
}
TEST(Differential, SlowZ3BmcAgreesOnTextSchedulesOfTheShortForm) { bmcAgreesOnTextSchedules(1, 8, 10'000'000, 15); }
TEST(Differential, SlowZ3BmcAgreesOnTextSchedules) { bmcAgreesOnTextSchedules(9, 64); }
// Seed 50 commits an MMA group that arrives on a barrier and then waits for
// pending=0: the wait must not retire the group before its Complete step
// (Z3 BMC had skipped it, so its traces did not replay on the simulator).
TEST(Differential, Z3BmcWaitsForAnMmaGroupsBarrierArrival) { bmcAgreesOnTextSchedules(50, 1); }
