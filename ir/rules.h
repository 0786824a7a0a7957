// The rule registry: every rule cake reports, generated from ir/rules.def
// (an X-macro), so that there is one table with one failure policy.
//
//   ir::Rule::SyncDeadlock            the enumerator (ir/rule_ids.h; a typo
//                                     does not compile)
//   ir::ruleInfo(ir::Rule::...)       its id, severity, category, title, summary
//   ir::findRule("sync.deadlock")     lookup by id for user input (explain, the
//                                     corpus expectations): nullptr when unknown
//   ir::rule("sync.deadlock")         lookup by id for code that reports a rule
//                                     given as a string: an unknown id is a bug
//                                     in cake and throws std::logic_error (the
//                                     command line turns it into exit 2, never
//                                     into a pass or into another rule)
//
// `cake explain`, docs/rules/README.md, the text/JSON renderers and SARIF
// (ir/sarif.h) all read this table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cake::ir {

enum class Severity { Error, Warning, Note, Remark };

enum class Category {
  Syntax,               // the text is not in the language
  Type,                 // names, arguments, types
  ProgramSafety,        // deadlock, race, async work at exit
  HardwareConformance,  // target contracts: TMA, MMA, TMEM, registers
  DataConsistency,      // stale data, phases, proxy fences
  ScheduleSemantics,    // structure: directions, slots, unused resources
  PerformanceReport,    // resource report, estimates
  Hint,
};

std::string_view severityName(Severity s);
std::string_view categoryName(Category c);

// The stage that reports a rule.
enum class RuleOwner { Frontend, Driver, Structural, ModelChecker, Gates, Lowering };
std::string_view ruleOwnerName(RuleOwner o);

// The rule enumerators are defined in ir/rule_ids.h (generated from
// ir/rules.def); include it where code names one (ir::Rule::SyncDeadlock).
// Declared opaque here so that adding a rule recompiles only those files.
enum class Rule : uint16_t;

// One entry of the registry.
struct RuleInfo {
  std::string_view id;        // stable, e.g. "sync.deadlock"
  Severity severity;
  Category category;
  std::string_view title;     // one line
  std::string_view summary;   // a paragraph for `cake explain`
  Rule rule;
  RuleOwner owner;
};

// Every rule, in registry order (grouped by owner).
std::span<const RuleInfo> allRules();
const RuleInfo& ruleInfo(Rule r);
// nullptr for an id that is not a rule.
const RuleInfo* findRule(std::string_view id);
// The rule with this id; throws std::logic_error("unknown rule id ...") when
// there is none (a bug in the caller, never a property of the input).
const RuleInfo& rule(std::string_view id);
// The rules one stage reports, in registry order.
std::span<const RuleInfo> rulesOf(RuleOwner owner);

// Lookup in a sub-table (kept for callers that search one stage's rules).
const RuleInfo* findRule(std::span<const RuleInfo> table, std::string_view id);
// The front end's own rules (syntax.*, type.*).
std::span<const RuleInfo> frontendRules();

}  // namespace cake::ir
