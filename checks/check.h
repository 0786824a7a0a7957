// The check driver: runs every gate on a typed schedule and gathers
// findings and per-property verdicts. This is what `cake check` calls.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::checks {

// The engine that decides synchronization for each parameter binding
// (checks/sync_engine.h).
enum class SyncEngine { Explicit, Z3, Both };

struct CheckOptions {
  ir::Target target = ir::Target::Unspecified;  // resolved target (decorator or --target)
  // Wall clock of one obligation (each check's queries together; the model
  // checker's values, explorations and proof together): a safety limit,
  // past it the verdict is unknown. What decides is work (below).
  unsigned timeout_ms = 10000;
  unsigned memory_mb = 4096;                    // solver memory cap
  uint64_t rlimit = 0;                          // Z3 resource limit per query (deterministic); 0 = none
  // The model checker's bounded check (the parameter values and their
  // explorations): its work budget, in milliseconds of the calibration
  // machine's CPU (encoder/proof_budget.h; the same verdict at any load).
  unsigned bounded_timeout_ms = 10000;
  // The proof for every trip count (encoder/trip_proof.h), after the bounded
  // check found nothing: its work budget, likewise (0: no proof, "checked" at most).
  unsigned proof_timeout_ms = 3000;
  SyncEngine sync_engine = SyncEngine::Explicit;  // --engine
  // --engine z3: the work of the Z3 engine's queries before a finding, in
  // milliseconds of the calibration machine's CPU (deterministic); a value
  // past it is decided by the explicit engine, and the verdict names it
  // (docs/z3.md "The Z3 engine's work cap"). 0: no cap (Z3 decides every
  // value, or the verdict is unknown).
  unsigned z3_work_ms = 500;
  // --engine explicit: the work of the search for other rules once the
  // bounded check has reported a finding (the later parameter values), in
  // milliseconds of the calibration machine's CPU (deterministic, like
  // kZ3AfterFinding for --engine z3, and as large). When it runs out, the
  // values left are not searched and a *unknown* verdict of "sync" names
  // them; the finding and the exit code stay. 0: no cap (the later values
  // within bounded_timeout_ms). docs/z3.md "The explicit engine after the
  // first finding".
  unsigned after_finding_work_ms = 500;
  bool structural = true;
  bool layout = true;
  // The cross-CTA store check (checks/layout_gstore.cpp, `--cross-cta-stores`):
  // off by default until the corpus files that write a grid-indexed output
  // without its grid index are rewritten (docs/known-limits.md "Global
  // memory: what is modelled and what is left out").
  bool cross_cta_stores = false;
  bool model_check = true;
  // The resource report (rule report.resources, CheckResult::resources): a
  // remark whose symbolic quantities are each a Z3 optimization. It decides
  // no verdict; the corpus gate, which reads only error findings and
  // verdicts, turns it off (docs/benchmarks.md "Session 33 (h-perf33)").
  bool resource_report = true;
};

// Alive2-style strict result kinds for one property.
enum class VerdictKind {
  Proved,          // holds for every trip count allowed by the assumptions
  Checked,         // holds for the listed parameter values only
  Counterexample,  // a violation was found (and replayed)
  Unknown,         // could not decide: timeout, memory, unsupported construct
  Error,           // internal error (e.g. engines disagree)
};
std::string_view verdictName(VerdictKind v);

struct PropertyVerdict {
  std::string property;   // rule id, or a group such as "sync" for the model checker
  VerdictKind kind = VerdictKind::Unknown;
  std::string detail;     // "K in {0,1,3,4,5,8,9}", "timeout after 10 s", ...
  // What the bounded check's covering values did not reach, for a verdict
  // that is not proved (each also in `detail`): far thresholds, guard-outcome
  // vectors and overlaps left out ("the step of `k // 1000` at f:3:5 (past
  // the 512 iterations the values run)"). `cake check --json` lists them as
  // the verdict's "unreached". A verdict with anything unreached is
  // *unknown*, never *checked*: a bug can hide in what was not run.
  std::vector<std::string> unreached = {};
};

struct CheckResult {
  std::vector<ir::Finding> findings;
  std::vector<PropertyVerdict> verdicts;
  nlohmann::json resources = nlohmann::json::object();  // resource report
  bool hasErrors() const;
  // True when some verdict is Unknown or Error: `cake check` then exits 2
  // unless an error finding already decided the outcome.
  bool undecided() const;
};

CheckResult checkSchedule(const ir::Schedule& s, const CheckOptions& opts);

// Every rule known to cake (front end, structural, model checker, gates).
std::span<const ir::RuleInfo> allRules();

}  // namespace cake::checks
