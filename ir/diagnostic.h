// The diagnostic model shared by every stage: rules (ir/rules.h, the one
// registry), findings (a rule instance at a
// source range, with notes and an optional trace), and their rendering as
// clang-style text and as JSON.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/rules.h"
#include "ir/source.h"
#include "ir/trace.h"

namespace cake::ir {

// A secondary location: "the other side of the problem".
struct Note {
  SourceRange range;
  std::string message;
};

// One step of a counterexample trace. Fields that do not apply stay empty
// (or -1), and are left out of the JSON.
struct TraceStep {
  StepKind kind = StepKind::Other;   // what the step does (ir/trace.h); JSON "kind"
  std::string role;         // role name
  int instance = -1;        // instance index within the role
  std::string op;           // op as written, e.g. "lm.wait(full, iter=k)"
  SourceRange range;        // where the op is
  std::optional<long long> iteration;   // value of iter= (or loop var) at the step
  std::string barrier;      // barrier name
  int slot = -1;
  std::optional<long long> phase_meant;
  std::optional<long long> completed;   // barrier's completed-phase count
  std::string buffer;       // e.g. "smem_a[1] bytes [16384,32768)"
  std::string event;        // the kind in words, for people: "issues the TMA load", ...
};

struct Finding {
  std::string rule;         // RuleInfo::id
  Severity severity = Severity::Error;
  Category category = Category::ProgramSafety;
  std::string message;
  SourceRange range;
  std::vector<Note> notes;
  std::vector<TraceStep> trace;
  // The trace's slice (ir/trace.h relevantSteps): ascending indices into
  // `trace` of the steps the violation depends on; empty: not computed.
  std::vector<int> relevant;
  // The violating steps (indices into `trace`): the step at fault and the
  // other side's last step, where they ran.
  std::vector<int> violating;
  // Waits that never pass at the end of the trace (deadlock, lost phase):
  // one per blocked instance, after the trace.
  std::vector<TraceStep> blocked;
  // Verdict of the property behind the finding when it came from a solver:
  // "counterexample", or for reports e.g. "proved" / "checked for K in {..}".
  std::string verdict;
  nlohmann::json subject = nlohmann::json::object();  // role, barrier, slot, ...
  nlohmann::json data = nlohmann::json::object();     // rule-specific payload (e.g. resource report)
};

// Collects findings; stages append, the driver renders.
class DiagnosticSink {
 public:
  void add(Finding f) { findings_.push_back(std::move(f)); }
  const std::vector<Finding>& findings() const { return findings_; }
  std::vector<Finding>& findings() { return findings_; }
  bool hasErrors() const;
  size_t errorCount() const;
 private:
  std::vector<Finding> findings_;
};

// Build a finding of a rule (severity and category come from the registry).
Finding makeFinding(const RuleInfo& rule, SourceRange range, std::string message);
Finding makeFinding(Rule rule, SourceRange range, std::string message);

// clang-style text:  file:line:col: error: message [rule.id]
//                    <source line>
//                         ^~~~~
//                    file:line:col: note: ...
//
// A trace is shown as its relevant steps (Finding::relevant, with a header
// line "relevant steps: N of M ...", each step tagged [kind]) unless
// `full_trace`, or no slice was computed: then every step, untagged.
// docs/traces.md "Text".
std::string renderText(const Finding& f, bool color = false, bool full_trace = false);
nlohmann::json toJson(const Finding& f);
nlohmann::json toJson(const SourceRange& r);
nlohmann::json toJson(const TraceStep& t);
// One trace step as the text renderer words it ("producer[0] issues
// lm.tma_load(...) (iter=0, barrier=full, slot=0)"), without the "trace N:".
std::string traceStepText(const TraceStep& t);
// Serialise JSON safely: invalid UTF-8 (from binary input) is replaced, never thrown on.
std::string dumpJson(const nlohmann::json& j, int indent = -1);
// Make arbitrary bytes printable on one terminal line (control bytes and
// invalid UTF-8 become \xNN), for messages that quote the input.
std::string printable(std::string_view bytes);
// Escape & < > " ' for XML / HTML text and attribute values (the corpus
// gate's HTML report, the trace SVG).
std::string markupEscape(std::string_view s);

}  // namespace cake::ir
