// The rule of the first violation the bounded check meets in a schedule's
// text at some parameter values, for the tests that compare a broken form's
// verdict at a few slice or tile counts (trip_grouped_test.cpp,
// trip_marlin_slices_test.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "test_util.h"

namespace cake::testing {

// The first violation's rule in the first schedule of `text` at these
// values ("" if none).
inline std::string firstRuleAt(const std::string& text, std::initializer_list<std::pair<std::string, int64_t>> values) {
  const ir::Module m = compile(text);
  if (m.schedules.empty()) return "no schedule";
  const ir::Schedule& s = m.schedules[0];
  const auto r = exploreToFirst(s, bind(s, values));
  if (r.outcome != encoder::Outcome::Violation || r.violations.empty()) return "";
  return r.violations.front().rule;
}

}  // namespace cake::testing
