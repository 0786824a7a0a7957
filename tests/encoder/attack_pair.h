// Broken/fixed pairs under `cake check`'s defaults (checks::checkSchedule
// without the wall clock), shared by the attacks on the bounded check's
// parameter values (attack3_test.cpp, attack4_test.cpp): the broken form
// must be reported with an error, the fixed one pass and be decided.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "checks/check.h"
#include "test_util.h"

namespace cake::testing::pairs {

using Edits = std::vector<std::pair<std::string, std::string>>;

inline std::string edited(std::string text, const Edits& edits) {
  for (const auto& [from, to] : edits) text = cake::testing::replace(text, from, to);
  return text;
}

inline checks::CheckResult checkText(const std::string& text) {
  auto mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {};
  const ir::Schedule& s = mod.schedules.at(0);
  checks::CheckOptions opts;  // cake check's defaults, without the wall clock
  opts.target = s.target;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.rlimit = cake::testing::kQueryRlimit;
  return checks::checkSchedule(s, opts);
}

inline std::string describe(const checks::CheckResult& r) {
  std::string out;
  for (const ir::Finding& f : r.findings)
    if (f.severity == ir::Severity::Error) out += f.rule + ": " + f.message + "\n";
  for (const auto& v : r.verdicts) out += v.property + " " + std::string(checks::verdictName(v.kind)) + ": " + v.detail + "\n";
  return out;
}

// The broken form is reported with an error, with `rule` among the
// errors (any rule when `rule` is empty); the fixed form (when given)
// passes (exit 0) and is decided.
inline void expectPair(const std::string& what, const std::string& broken, const std::string& rule, const std::string& fixed) {
  const checks::CheckResult b = checkText(broken);
  EXPECT_TRUE(b.hasErrors()) << what << ": the broken form exits 0\n" << describe(b);
  bool has = rule.empty();
  for (const ir::Finding& f : b.findings) has = has || (f.rule == rule && f.severity == ir::Severity::Error);
  EXPECT_TRUE(has) << what << ": " << rule << " not reported\n" << describe(b);
  if (fixed.empty()) return;
  const checks::CheckResult f = checkText(fixed);
  EXPECT_FALSE(f.hasErrors()) << what << ": the fixed form is reported\n" << describe(f);
  EXPECT_FALSE(f.undecided()) << what << ": the fixed form is undecided\n" << describe(f);
}

}  // namespace cake::testing::pairs
