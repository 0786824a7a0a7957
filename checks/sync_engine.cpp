#include "checks/sync_engine.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

#include <fmt/format.h>

#include "encoder/z3_po.h"

namespace cake::checks {

std::optional<SyncEngine> parseSyncEngine(std::string_view name) {
  if (name == "explicit") return SyncEngine::Explicit;
  if (name == "z3") return SyncEngine::Z3;
  if (name == "both") return SyncEngine::Both;
  return std::nullopt;
}

std::string_view syncEngineName(SyncEngine e) {
  switch (e) {
    case SyncEngine::Explicit: return "explicit";
    case SyncEngine::Z3: return "z3";
    case SyncEngine::Both: return "both";
  }
  return "explicit";
}

namespace {

// Alone, the Z3 engine stops at the first violation (as the explicit engine
// reports the rules near its first one); beside the explicit engine it
// looks for every rule.
encoder::PoResult runPo(const encoder::System& sys, const encoder::ExploreOptions& eo, bool stop_at_first,
                        const std::set<std::string>& known, uint64_t rlimit) {
  encoder::PoOptions po;
  po.stop_at_first = stop_at_first;
  po.known = known;
  po.limits.rlimit = rlimit;
  po.limits.timeout_ms = eo.timeout_ms;
  po.limits.memory_mb = eo.memory_mb;
  const char* profile = std::getenv("CAKE_PO_PROFILE");
  po.by_rule = profile && std::string(profile) == "rules";
  return encoder::poCheck(sys, po);
}

std::set<std::string> rulesOf(const encoder::ModelCheckResult& r) {
  std::set<std::string> out;
  for (const auto& v : r.violations) out.insert(v.rule);
  return out;
}

std::string traceText(const encoder::System& sys, const encoder::Violation& v) {
  std::string out;
  for (size_t i = 0; i < v.trace.size(); ++i) out += fmt::format("\n    {}: {}", i, encoder::stepToString(sys, v.trace[i]));
  return out.empty() ? " (static: no trace)" : out;
}

// What each engine said, rule by rule, with its traces.
std::string disagreement(const encoder::System& sys, const encoder::ModelCheckResult& a,
                         const encoder::ModelCheckResult& b) {
  std::string out = fmt::format("engines disagree for {}:", encoder::bindingToString(*sys.schedule, sys.binding));
  for (const auto* r : {&a, &b}) {
    out += fmt::format("\n  {} reports {}", r->engine, r->violations.empty() ? "no violation" : "");
    for (const auto& v : r->violations) out += fmt::format("\n  - {}: {}{}", v.rule, v.message, traceText(sys, v));
  }
  return out;
}

}  // namespace

SyncRun runSyncEngine(const encoder::System& sys, SyncEngine engine, const encoder::ExploreOptions& eo,
                      const std::set<std::string>& known, uint64_t z3_rlimit) {
  SyncRun out;
  if (engine == SyncEngine::Explicit) {
    out.result = encoder::explore(sys, eo);
    return out;
  }
  encoder::PoResult z = engine == SyncEngine::Z3 ? runPo(sys, eo, true, known, z3_rlimit) : runPo(sys, eo, false, {}, 0);
  // With CAKE_PO_PROFILE set, each binding's Z3 profile (build, queries,
  // answers, CPU) on stderr: where `--engine z3|both` spends its time
  // (CAKE_PO_PROFILE=rules: the first query one rule at a time, each
  // rule's cost on its own line; PoOptions::by_rule).
  if (std::getenv("CAKE_PO_PROFILE"))
    fmt::print(stderr, "z3-po {}: {} -> {}\n{}", encoder::bindingToString(*sys.schedule, sys.binding),
               z.events, z.result.outcome == encoder::Outcome::Pass        ? "pass"
                         : z.result.outcome == encoder::Outcome::Violation ? "violation"
                                                                           : "unknown: " + z.result.detail,
               z.profile);
  if (z.internal_error) {
    out.internal_error = z.error;
    return out;
  }
  if (engine == SyncEngine::Z3) {
    out.result = std::move(z.result);
    return out;
  }
  // both: the explicit engine looks for every rule too (not only those near
  // the first violation), so the two sets of rules must be equal
  encoder::ExploreOptions full = encoder::everyRule(eo);
  encoder::ModelCheckResult x = encoder::explore(sys, full);
  if (x.outcome == encoder::Outcome::Unknown || z.result.outcome == encoder::Outcome::Unknown) {
    out.result = x.outcome == encoder::Outcome::Unknown ? std::move(x) : std::move(z.result);
    return out;
  }
  // A search cut by its budget after a violation reports that violation
  // (real, traced) but not the rules only its unexpanded states lead to:
  // its rules must then be some of Z3's, whose search for every rule is
  // complete (else Unknown, above), and the result is Z3's. (Under load the
  // cut falls at another state each run: comparing equal sets there made
  // `both` report "engines disagree" for rules the explicit engine finds
  // with more time; docs/known-limits.md.)
  const std::set<std::string> xr = rulesOf(x), zr = rulesOf(z.result);
  if (!x.cut.empty()) {
    if (!std::includes(zr.begin(), zr.end(), xr.begin(), xr.end())) {
      out.internal_error = disagreement(sys, x, z.result);
      return out;
    }
    out.result = std::move(z.result);
    out.result.engine = "z3-po+explicit";
    out.result.detail = fmt::format("the explicit engine's search for every rule was cut ({}): its {} of {} rules are "
                                    "Z3's; the rules are Z3's", x.cut, xr.size(), zr.size());
    return out;
  }
  if (xr != zr) {
    out.internal_error = disagreement(sys, x, z.result);
    return out;
  }
  out.result = std::move(x);
  out.result.engine = "explicit+z3-po";
  return out;
}

}  // namespace cake::checks
