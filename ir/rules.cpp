#include "ir/rules.h"

#include "ir/rule_ids.h"

#include <array>
#include <stdexcept>
#include <string>

namespace cake::ir {

namespace {

constexpr RuleInfo kRules[] = {
#define CAKE_RULE(name, id, owner, severity, category, title, summary) \
  {id, Severity::severity, Category::category, title, summary, Rule::name, RuleOwner::owner},
#include "ir/rules.def"
#undef CAKE_RULE
};

// The registry is grouped by owner, so each owner's rules are one span.
constexpr bool groupedByOwner() {
  for (size_t i = 1; i < std::size(kRules); ++i)
    for (size_t j = 0; j + 1 < i; ++j)
      if (kRules[j].owner == kRules[i].owner && kRules[i - 1].owner != kRules[i].owner) return false;
  return true;
}
static_assert(groupedByOwner(), "ir/rules.def: keep each owner's rules together");

constexpr bool uniqueIds() {
  for (size_t i = 0; i < std::size(kRules); ++i)
    for (size_t j = 0; j < i; ++j)
      if (kRules[i].id == kRules[j].id) return false;
  return true;
}
static_assert(uniqueIds(), "ir/rules.def: a rule id is defined twice");

}  // namespace

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    case Severity::Remark: return "remark";
  }
  return "error";
}

std::string_view categoryName(Category c) {
  switch (c) {
    case Category::Syntax: return "syntax";
    case Category::Type: return "type";
    case Category::ProgramSafety: return "program-safety";
    case Category::HardwareConformance: return "hardware-conformance";
    case Category::DataConsistency: return "data-consistency";
    case Category::ScheduleSemantics: return "schedule-semantics";
    case Category::PerformanceReport: return "performance-report";
    case Category::Hint: return "hint";
  }
  return "hint";
}

std::string_view ruleOwnerName(RuleOwner o) {
  switch (o) {
    case RuleOwner::Frontend: return "front end";
    case RuleOwner::Driver: return "command line";
    case RuleOwner::Structural: return "structural checks";
    case RuleOwner::ModelChecker: return "model checker";
    case RuleOwner::Gates: return "layout and hardware gates";
    case RuleOwner::Lowering: return "lowering";
  }
  return "";
}

std::span<const RuleInfo> allRules() { return kRules; }

const RuleInfo& ruleInfo(Rule r) { return kRules[static_cast<size_t>(r)]; }

const RuleInfo* findRule(std::string_view id) { return findRule(std::span<const RuleInfo>(kRules), id); }

const RuleInfo& rule(std::string_view id) {
  if (const RuleInfo* r = findRule(id)) return *r;
  throw std::logic_error("internal error: unknown rule id '" + std::string(id) + "' (not in ir/rules.def)");
}

std::span<const RuleInfo> rulesOf(RuleOwner owner) {
  size_t b = 0;
  while (b < std::size(kRules) && kRules[b].owner != owner) ++b;
  size_t e = b;
  while (e < std::size(kRules) && kRules[e].owner == owner) ++e;
  return std::span<const RuleInfo>(kRules).subspan(b, e - b);
}

const RuleInfo* findRule(std::span<const RuleInfo> table, std::string_view id) {
  for (const RuleInfo& r : table)
    if (r.id == id) return &r;
  return nullptr;
}

std::span<const RuleInfo> frontendRules() { return rulesOf(RuleOwner::Frontend); }

}  // namespace cake::ir
