// The corpus gate (`cake corpus`): runs every corpus case through the front
// end and the check driver, compares the result with the case's inline
// expectations (docs/contributing.md "Corpus expectations"), and reports
// agreements, false positives, false negatives, unknowns and unsupported
// cases, a per-rule confusion table and check times, as text, JSON, JSON
// Lines (one record per case) and a self-contained HTML page.
//
// A run is a list of CaseRecords; every report is built from that list
// alone (buildReport), so a run split into shards and merged gives exactly
// the report of one run (timings aside: they are measured, not derived).
// See docs/corpus-gate.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/check.h"
#include "ir/frontend.h"

namespace cake::checks::gate {

// ------------------------------------------------------------ expectations

// The inline expectations of one case.
//   `# expect: pass`              no error finding
//   `# expect: <rule>`            that rule is reported as an error (each such line)
//   `<code>  # expect-error: <rule>` that rule, with its primary location on
//                                 one of the lines that carry it for that rule
//   `# expect-any: <r1> <r2> ...` at least one of these rules (mutants: every
//                                 rule the independent labeller saw)
//   `# may-also: <r1> <r2> ...`   secondary findings that follow from the same
//                                 bug: allowed, not required
// The one parser of these annotations: the gate, the mutation engine and the
// tests (tests/layout, tests/encoder) all call it.
struct Expectation {
  bool pass = false;
  std::vector<std::string> rules;                   // `# expect:` rules, in order, unique
  std::vector<std::string> any_of;                  // `# expect-any:` rules
  std::vector<std::string> may_also;                // `# may-also:` rules (tolerated, not judged)
  std::map<std::string, std::vector<int>> lines;    // rule -> lines with `# expect-error:`
  std::vector<std::string> problems;                // malformed or contradictory annotations

  bool empty() const { return !pass && rules.empty() && any_of.empty() && lines.empty(); }
  // Every rule that must be reported (the `# expect:` rules and the rules of
  // `# expect-error:` lines), sorted.
  std::vector<std::string> requiredRules() const;
  // "pass", or the required rules joined by '+', or "any(r1|r2)".
  std::string label() const;
};

Expectation parseExpectations(std::string_view text);
nlohmann::json toJson(const Expectation& e);
Expectation expectationFromJson(const nlohmann::json& j);

// `# target: sm_100a`: the target a case is checked for when its decorator
// names none (what `cake check --target` gives on the command line).
std::optional<std::string> parseTargetAnnotation(std::string_view text);
// The front-end options a case is compiled with: its `# target:` as the
// override (left unset when the name is not a target; the gate judges that
// case invalid).
ir::FrontendOptions frontendOptionsFor(std::string_view text);

// `# check: proof`: the gate checks the case as `cake check` does by
// default, the proof for every trip count included (which can find a
// violation the covering values miss), whatever it expects.
bool wantsProof(std::string_view text);

// Whether the gate runs the proof for every trip count on a case: every
// known-good case (`# expect: pass`: is it still *proved*, or only
// *checked*?) and every case marked `# check: proof`.
bool runsProof(std::string_view text);

// ------------------------------------------------------------- the proof

// Whether `cake check`'s proof for every trip count settled a known-good
// case, and if not, the kind of reason (docs/corpus-gate.md "Proofs"):
//   proved               every schedule's sync verdict is Proved
//   work-budget          the proof used up its work budget (deterministic)
//   state-cap            an exploration met its state cap
//   no-steady-period     no steady period within the unrolled window
//   outside-assumptions  the proof met a violation only at a trip count that
//                        no parameter values allowed by lm.assume give
//   refused-shape        the argument does not take the schedule as written
//   not-run              no proof reason was given (the proof did not run)
//   time-limit           the wall-clock safety limit was reached: depends on
//                        the machine's load, the only kind that is not
//                        deterministic
// A sync verdict is "checked" with a detail "<values>; proof: unknown (<why>)".
// `detail` is the verdict's detail (or several, "; "-joined per schedule).
std::string proofKind(std::string_view detail);
// Every kind except time-limit: the same verdict on any machine.
bool deterministicProofMiss(std::string_view kind);

struct ProofStatus {
  std::string kind;     // "proved" or a miss kind (above)
  std::string detail;   // the first not-proved schedule: "<schedule>: <verdict detail>"
};

// A mutant's header (written by gate/mutate.h): `# mutant: <operator>`,
// `# original: <path>`, `# line: <n>: <text>`, `# label: <how it was labelled>`.
struct MutantHeader {
  std::string op, original, line, label;
};
std::optional<MutantHeader> parseMutantHeader(std::string_view text);

// --------------------------------------------------------------- the cases

// 16 hex digits (64-bit FNV-1a of the bytes). Cases are identified by it for
// sharding and resuming: a case's verdict depends on its text only.
std::string contentHash(std::string_view text);

struct Case {
  std::string path;       // as discovered (relative to the working directory) or virtual
  std::string text;
  std::string hash;       // contentHash(text)
};

// Every `.cake` file under the given files/directories (recursively),
// sorted by path, duplicates removed. Fills `errors` for unreadable paths.
std::vector<Case> discoverCases(const std::vector<std::string>& paths,
                                std::vector<std::string>& errors);

struct Shard {
  int index = 1;   // 1-based
  int count = 1;
};
// "i/n" with 1 <= i <= n.
std::optional<Shard> parseShard(std::string_view s);
// Deterministic: by content hash only, so a case lands in the same shard
// whatever the order or the set of other cases.
bool inShard(std::string_view hash, const Shard& shard);

// ------------------------------------------------------------- observation

// One error-severity finding as the gate sees it.
struct Reported {
  std::string rule;
  int line = 0;             // primary location (0: none)
  std::string message;
  bool operator<(const Reported& o) const {
    return std::tie(rule, line, message) < std::tie(o.rule, o.line, o.message);
  }
  bool operator==(const Reported& o) const {
    return rule == o.rule && line == o.line && message == o.message;
  }
};

// What the front end and the check driver said about a case.
struct Observation {
  bool frontend_ok = true;
  std::vector<Reported> frontend_errors;   // syntax.* / type.* errors
  std::vector<Reported> errors;            // error findings of checkSchedule, all schedules
  std::vector<std::string> undecided;      // "<schedule>: <property>: unknown (<detail>)"
  std::string crash;                       // an exception escaped the checks
  // The proof's outcome over every schedule, when it ran (runsProof) and no
  // schedule has an error or an undecided property.
  std::optional<ProofStatus> proof;
};

// The proof status of a case from its schedules' sync verdicts: proved
// when every one is Proved; else the first miss whose kind is
// deterministic (else the first miss) names the kind.
ProofStatus proofStatus(const std::vector<std::pair<std::string, PropertyVerdict>>& sync_verdicts);

// Runs a case's text: compileModule, then checkSchedule on every schedule
// with the schedule's target; the proof too where runsProof says so (only
// where wantsProof says so without `proofs`). Never throws.
Observation observe(const Case& c, const CheckOptions& opts, bool proofs = true);

// The cases whose proof a gate run can skip: path -> {content hash, proof
// kind} of every case the baseline records as agreeing but not proved. Its
// proof can only improve (a regression is a proved case that is no longer
// proved), and the misses cost the most (each uses up its budget). Empty
// when the baseline has none or does not parse.
std::map<std::string, std::pair<std::string, std::string>> unprovedInBaseline(const nlohmann::json& baseline);

// ---------------------------------------------------------------- records

enum class Outcome {
  Agree,           // the checks said what the expectation says
  FalsePositive,   // a known-good case rejected
  FalseNegative,   // a known-bad case accepted, or reported with the wrong rule/line
  Unknown,         // could not decide (a verdict Unknown/Error, a crash); never agreement
  Unsupported,     // front-end error on a case that does not expect one (exit-2 class)
  Invalid,         // the case has no (or a malformed) expectation
};
std::string_view outcomeName(Outcome o);   // "agree", "false-positive", ...
std::optional<Outcome> parseOutcome(std::string_view s);

struct CaseRecord {
  std::string path;
  std::string hash;
  std::string kind = "corpus";       // "corpus" | "mutant"
  Expectation expect;
  std::optional<MutantHeader> mutant;
  Outcome outcome = Outcome::Invalid;
  std::string reason;                // one line: why this outcome
  std::vector<Reported> reported;    // errors (front end or checks), sorted
  std::vector<std::string> undecided;
  // Known-good cases that agree: the proof's outcome (proof.kind empty:
  // not recorded, e.g. a known-bad case).
  ProofStatus proof;
  double time_ms = 0;                // front end + checks, wall clock
};
nlohmann::json toJson(const CaseRecord& r, bool with_time = true);
CaseRecord recordFromJson(const nlohmann::json& j);   // throws nlohmann::json::exception

// Compares an observation with the case's expectation.
CaseRecord judge(const Case& c, const Observation& obs, double time_ms);

// ----------------------------------------------------------------- report

struct RuleRow {
  int expected = 0;      // cases that expect the rule
  int agreed = 0;        // ... and got it (where the case agreed)
  int accepted = 0;      // ... and got no error at all (false negative)
  int wrong = 0;         // ... and got other errors (false negative)
  int unknown = 0;       // ... undecided
  int unsupported = 0;   // ... front-end error
  int spurious = 0;      // cases that report the rule as an error without expecting it
};

struct Tally {
  int cases = 0, agree = 0, fp = 0, fn = 0, unknown = 0, unsupported = 0, invalid = 0;
  void add(Outcome o);
};

struct Regression {
  std::string path;
  std::string was;   // outcome in the baseline (proofs: its proof kind, "none" if it has none)
  std::string now;   // outcome now ("missing" if the case is gone; proofs: the proof kind now)
  std::string detail;  // proofs: why it is not proved now
};

// Known-good cases per proof kind ("proved", "work-budget", ...).
using ProofCounts = std::map<std::string, int>;

struct Report {
  std::vector<CaseRecord> cases;                 // sorted by path
  Tally total;
  std::map<std::string, Tally> by_kind;          // "corpus", "mutant"
  std::map<std::string, RuleRow> rules;          // "pass" is a row too
  // confusion[expected][observed]: expected is "pass" or a required rule;
  // observed is the same label when the case agreed, else "pass" (nothing
  // reported), the first reported rule, "unknown" or "unsupported".
  std::map<std::string, std::map<std::string, int>> confusion;
  // Timings (not part of the deterministic report).
  double median_ms = 0, p95_ms = 0, max_ms = 0, total_ms = 0;
  // Baseline comparison (filled by compareBaseline).
  bool baseline_checked = false;
  bool proofs_run = false;  // the known-good cases' proofs ran (CorpusOptions::proofs)
  std::vector<Regression> regressions;
  std::vector<Regression> improvements;
  // Proofs against the baseline: a case proved there and not now for a
  // deterministic reason (fails the gate); the same for the wall-clock
  // limit (a warning: the load, not the change, may be the cause); a case
  // proved now and not there (an improvement).
  std::vector<Regression> proof_regressions;
  std::vector<Regression> proof_warnings;
  std::vector<Regression> proof_improvements;
  // Proof kinds of the known-good cases that agree, in total and per kind
  // of case ("corpus", "mutant").
  ProofCounts proofs;
  std::map<std::string, ProofCounts> proofs_by_kind;
  // Shard bookkeeping of merged runs: shards seen, and whether they cover
  // the whole case set that the runs were started on.
  std::vector<std::string> notes;
  bool incomplete = false;   // a merge that lacks shards or records: the gate cannot pass

  bool gateFailed() const {
    return total.fp > 0 || total.fn > 0 || total.invalid > 0 || !regressions.empty() || !proof_regressions.empty() ||
           incomplete;
  }
};

// Records with the same path: the last one wins. The order of `records`
// does not matter.
Report buildReport(std::vector<CaseRecord> records);

// The JSON document. Without timings (`deterministic`), a report built from
// the same records is byte-identical whatever the shards and their order.
nlohmann::json reportJson(const Report& r, bool deterministic = false);
std::string renderTextReport(const Report& r, bool with_timings = true, int max_listed = 50);
std::string renderHtmlReport(const Report& r);

// corpus/baseline.json: {"format": 1, "tool", "cases": {path: {"expect", "hash", "outcome"[, "proof"]}}}
// ("proof": the proof kind of a known-good case that agrees).
nlohmann::json makeBaseline(const Report& r);
// A case that agreed in the baseline and does not now (or is gone) is a
// regression; one that did not agree and does now is an improvement.
// Proofs: a case whose baseline "proof" is "proved" and whose proof now
// ends for a deterministic reason is a proof regression; for the
// wall-clock limit, a proof warning; a case proved now whose baseline
// proof is not "proved" is a proof improvement.
// `in_scope` (a shard run) limits the comparison to the baseline's paths it
// accepts; unset: all of them.
void compareBaseline(Report& r, const nlohmann::json& baseline,
                     const std::function<bool(const std::string& path)>& in_scope = {});

// ------------------------------------------------------------- JSON Lines

// First line of every JSONL file: {"type":"run", "shard":"i/n",
// "universe": <cases before sharding>, "universe_hash": <hash of their sorted hashes>}.
struct RunHeader {
  Shard shard;
  int universe = 0;
  std::string universe_hash;
  bool proofs = false;   // the run ran the known-good cases' proofs (CorpusOptions::proofs)
};
nlohmann::json toJson(const RunHeader& h);

struct JsonlContents {
  std::vector<RunHeader> headers;
  std::vector<CaseRecord> records;
  std::vector<std::string> errors;   // "FILE:LINE: message" for lines that do not parse
};
// Reads one or more JSONL files. A truncated last line (an interrupted run) is
// reported in `errors` and skipped.
JsonlContents readJsonl(const std::vector<std::string>& files);

// Adds a note to the report, and marks it incomplete (the gate fails), when
// the headers do not describe one complete set of shards of one case set.
void checkShardCoverage(Report& r, const std::vector<RunHeader>& headers);

// ---------------------------------------------------------------- commands

struct CorpusOptions {
  std::vector<std::string> paths;        // files/dirs; empty: "corpus"
  std::optional<std::string> shard;      // "i/n"
  std::optional<std::string> jsonl;      // append one record per case (and a header)
  std::optional<std::string> json;       // the report as JSON
  std::optional<std::string> html;       // the report as HTML
  std::optional<std::string> baseline;   // compare with this baseline
  std::optional<std::string> write_baseline;  // write the current outcomes as a baseline
  std::optional<std::string> resume;     // skip cases whose hash has a record in this JSONL
  int mutants = 0;                       // also generate and label this many mutants in the run
  uint64_t seed = 1;                     // for --mutants
  int jobs = 1;                          // worker threads
  // Run `cake check`'s proof on the known-good cases and compare it with the
  // baseline (a proof lost for a deterministic reason fails the gate). Off by
  // default: it doubles the gate's CPU time (docs/corpus-gate.md "Proofs");
  // CI turns it on. --all-proofs and --write-baseline imply it.
  bool proofs = false;
  // Run the proof on every known-good case, also those the baseline records
  // as not proved (skipped otherwise when a baseline is given and none is
  // written: unprovedInBaseline).
  bool all_proofs = false;
  // Wall clock of one obligation: only a safety limit (work decides:
  // CheckOptions::bounded_timeout_ms), generous so that a loaded machine
  // does not turn a case unknown.
  unsigned timeout_ms = 120000;
  bool quiet = false;                    // no text report on stdout
  bool progress = true;                  // progress on stderr (only if it is a terminal)
  int max_listed = 50;                   // cases listed per section of the text report
};

// `cake corpus`. Exit status: 0 the gate passes, 1 it fails (an FP, an FN,
// an invalid case, or a regression against the baseline), 2 usage or I/O error.
int runCorpusCommand(const CorpusOptions& opts);

struct MergeOptions {
  std::vector<std::string> inputs;       // JSONL files
  std::optional<std::string> json, html, baseline, write_baseline, jsonl;
  bool quiet = false;
  int max_listed = 50;
};
// `cake corpus merge A.jsonl B.jsonl ...`: the report of the union of the
// records, exactly as one run would give it. Same exit status.
int runMergeCommand(const MergeOptions& opts);

// Which cases of the universe this run checks (`todo`: in the shard, no
// record yet) and which it takes from the resume file (`carried`: in the
// shard, a record with the same content hash, re-labelled with the case's path).
struct Plan {
  std::vector<Case> todo;
  std::vector<CaseRecord> carried;
  int other_shards = 0;
};
Plan planRun(const std::vector<Case>& cases, const Shard& shard,
             const std::map<std::string, CaseRecord>& resumed_by_hash);

// Calls fn(0) ... fn(n-1) on `jobs` threads (the calling one included).
void parallelFor(size_t n, int jobs, const std::function<void(size_t)>& fn);

// The case runner is replaceable (tests).
using Observer = std::function<Observation(const Case&)>;
// Runs (or resumes) the given cases; calls `on_record` for each new record
// as soon as it is known (in case order when jobs == 1).
std::vector<CaseRecord> runCases(const std::vector<Case>& cases, const Observer& observer,
                                 int jobs, const std::function<void(const CaseRecord&)>& on_record,
                                 bool progress);

}  // namespace cake::checks::gate
