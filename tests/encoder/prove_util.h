// The proof for every trip count in the tests, under test_util.h's
// deterministic budgets (a header of its own: test_util.h is included by
// every encoder test, most of which do not prove).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "encoder/trip_proof.h"
#include "test_util.h"

namespace cake::testing {

// The proof for every trip count (encoder/trip_proof.h) of `s`, every
// parameter checked at `value`, under test_util.h's deterministic budgets.
inline encoder::TripProofOptions testProofOptions() {
  encoder::TripProofOptions o;
  o.timeout_ms = kNoWallClockMs;
  o.rlimit = kQueryRlimit;
  return o;
}
inline encoder::ModelCheckResult proveSchedule(const ir::Schedule& s, int64_t value = 64,
                                               const encoder::TripProofOptions& o = testProofOptions()) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = value;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

// The same for the first schedule of `text`.
inline encoder::ModelCheckResult proveText(const std::string& text, int64_t value = 64) {
  auto m = compile(text);
  EXPECT_FALSE(m.schedules.empty());
  if (m.schedules.empty()) return {};
  return proveSchedule(m.schedules[0], value);
}

// A broken variant: the bounded check meets a violation (`broken`), and
// the proof does not say proved.
inline void expectBrokenNotProved(const std::string& text, const std::function<bool(const ir::Schedule&)>& broken,
                                  const std::string& what) {
  auto m = compile(text);
  ASSERT_FALSE(m.schedules.empty()) << what;
  EXPECT_TRUE(broken(m.schedules[0])) << what;
  auto p = proveSchedule(m.schedules[0]);
  EXPECT_NE(p.outcome, encoder::Outcome::Proved) << what << ": " << p.engine;
}

}  // namespace cake::testing
