#include "checks/check.h"
#include "checks/fact_residues.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "checks/layout.h"
#include "checks/model_check.h"
#include "checks/structural.h"
#include "ir/fact_fold.h"

namespace cake::checks {

std::string_view verdictName(VerdictKind v) {
  switch (v) {
    case VerdictKind::Proved: return "proved";
    case VerdictKind::Checked: return "checked";
    case VerdictKind::Counterexample: return "counterexample";
    case VerdictKind::Unknown: return "unknown";
    case VerdictKind::Error: return "error";
  }
  return "unknown";
}

bool CheckResult::hasErrors() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const ir::Finding& f) { return f.severity == ir::Severity::Error; });
}

bool CheckResult::undecided() const {
  return std::any_of(verdicts.begin(), verdicts.end(), [](const PropertyVerdict& v) {
    return v.kind == VerdictKind::Unknown || v.kind == VerdictKind::Error;
  });
}

// Two engines may report the same rule at the same place: keep the first.
static void dedupe(std::vector<ir::Finding>& findings) {
  std::set<std::tuple<std::string, int, int>> seen;
  std::vector<ir::Finding> kept;
  for (ir::Finding& f : findings)
    if (seen.insert({f.rule, f.range.line, f.range.col}).second) kept.push_back(std::move(f));
  findings = std::move(kept);
}

// Errors first, then by position, so the first line an agent reads is the
// most important one.
static void order(std::vector<ir::Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const ir::Finding& a, const ir::Finding& b) {
    return std::tuple(static_cast<int>(a.severity), a.range.line, a.range.col) <
           std::tuple(static_cast<int>(b.severity), b.range.line, b.range.col);
  });
}

CheckResult checkSchedule(const ir::Schedule& written, const CheckOptions& opts) {
  // Every check reads the expressions with the residues the facts fix folded
  // in (ir/fact_fold.h): equal values for every parameter the facts allow,
  // so the proofs need not derive them.
  // Facts spelled otherwise (`(k_tiles + 3) % 3 == 0`) give the residues the
  // solver shows they imply (checks/fact_residues.h).
  const std::optional<ir::Schedule> folded = ir::foldModuloFacts(written, impliedResidues(written));
  const ir::Schedule& s = folded ? *folded : written;
  CheckResult result;
  ir::DiagnosticSink sink;
  if (opts.structural) runStructuralChecks(s, sink, opts, &result.verdicts);
  if (opts.layout) runLayoutGates(s, opts, sink, result.resources, result.verdicts);
  if (opts.model_check) runModelChecker(s, opts, sink, result.verdicts);
  result.findings = std::move(sink.findings());
  dedupe(result.findings);
  order(result.findings);
  return result;
}

std::span<const ir::RuleInfo> allRules() { return ir::allRules(); }

}  // namespace cake::checks
