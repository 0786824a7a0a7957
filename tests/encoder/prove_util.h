// The proof for every trip count in the tests, under test_util.h's
// deterministic budgets (a header of its own: test_util.h is included by
// every encoder test, most of which do not prove).
#pragma once

#include <cstdint>
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

}  // namespace cake::testing
