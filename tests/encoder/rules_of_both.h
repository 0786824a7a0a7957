// The synchronization and data rules a model-checker run reports with both
// engines (explicit and Z3), shared by the tests that compare accesses
// through the two (strided_access_test, global_memory_test).
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/model_check.h"

namespace cake::testing {

// The sync.*, data.* and proxy.* rules of one run with both engines, which
// must agree (a disagreement fails the calling test), under budgets no
// loaded machine runs out of.
inline std::set<std::string> rulesOfBothEngines(const ir::Schedule& s) {
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::CheckOptions o;
  o.timeout_ms = 600000;
  o.sync_engine = checks::SyncEngine::Both;
  checks::runModelChecker(s, o, sink, verdicts);
  std::set<std::string> out;
  for (const auto& f : sink.findings())
    if (f.rule.rfind("sync.", 0) == 0 || f.rule.rfind("data.", 0) == 0 || f.rule.rfind("proxy.", 0) == 0)
      out.insert(f.rule);
  for (const auto& v : verdicts) EXPECT_EQ(v.detail.find("engines disagree"), std::string::npos) << v.detail;
  return out;
}

}  // namespace cake::testing
