// The explicit-state simulator and Z3 BMC on the same system, for the encoder
// tests that check the engines agree (z3_bmc_test, stale_read_test).
#pragma once

#include <gtest/gtest.h>

#include "encoder/simulator.h"
#include "encoder/z3_engine.h"
#include "test_util.h"

namespace cake::testing {

// The simulator without its depth and state caps: every rule, not only
// those near the first violation (and no wall clock: test_util.h).
inline encoder::ModelCheckResult exploreEveryRule(const encoder::System& sys) {
  encoder::ExploreOptions eo;
  eo.timeout_ms = kNoWallClockMs;
  eo.more_depth = 1u << 30;
  eo.more_states = uint64_t(1) << 40;
  return encoder::explore(sys, eo);
}

// Z3 BMC on `sys` (under the deterministic budgets of test_util.h, not
// the wall clock): decided, with no internal error, and the same rules as
// the simulator's `sim`.
inline encoder::Z3BmcResult bmcAgrees(const encoder::System& sys, const encoder::ModelCheckResult& sim) {
  encoder::Z3BmcOptions o;
  o.limits.timeout_ms = kNoWallClockMs;
  o.limits.rlimit = kQueryRlimit;
  encoder::Z3BmcResult z = encoder::bmcCheck(sys, o);
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_NE(z.result.outcome, encoder::Outcome::Unknown) << z.result.detail;
  EXPECT_EQ(ruleSet(sim), ruleSet(z.result)) << "z3-bmc";
  return z;
}

}  // namespace cake::testing
