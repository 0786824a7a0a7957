// The explicit-state engine: exhaustive breadth-first exploration of a
// System's interleavings (docs/semantics.md), and replay() that validates a
// trace from any engine step by step.
//
// Exploration keeps a visited set of hashed states and reduces the
// interleavings with persistent sets (docs/semantics.md "Partial-order
// reduction" says why that is sound for every rule). Breadth-first order
// makes the first violation found for a rule one with the shortest trace.
// A synchronization error ends its path: later violations on that path
// are consequences, not causes. A data hazard does not (endsRun in
// engine.h): the path goes on, and what it meets later is reported too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "encoder/engine.h"
#include "encoder/system.h"

namespace cake::encoder {

class ProofBudget;  // encoder/proof_budget.h

struct ExploreOptions {
  uint64_t max_states = 2000000;   // beyond: Outcome::Unknown
  unsigned timeout_ms = 10000;     // beyond: Outcome::Unknown (without `budget`)
  // Work, not time (encoder/proof_budget.h): when set, the exploration
  // charges its states to it (each expanded state, with the instructions of
  // the programs it walks) and stops with Outcome::Unknown once its work cap
  // or its wall-clock safety limit is reached; timeout_ms is then unused.
  // The cut falls on the same state at any load.
  ProofBudget* budget = nullptr;
  unsigned memory_mb = 1024;       // the visited set's size cap; beyond: Outcome::Unknown
  bool reduce = true;              // persistent-set reduction (off: every interleaving)
  bool stop_at_first = false;      // stop at the first violation (else: one per rule)
  // After the first violation, other rules are looked for only this many
  // steps deeper and within this many more states: their causes are near
  // the first one, and a broken schedule's state space is large.
  uint32_t more_depth = 12;
  uint64_t more_states = 100000;
  // Two interchangeable processes (sim_symmetry.h) explored once per
  // unordered pair of their states, in a modelled cluster where no static
  // candidate is to be resolved (docs/z3.md "Interchangeable processes in
  // lap induction and in the bounded check");
  // false: both orders (tests compare the two).
  bool symmetry = true;
};

// `o` looking for every rule, not only those near the first violation (to
// compare the rule sets of two engines).
inline ExploreOptions everyRule(ExploreOptions o = {}) {
  o.more_depth = 1u << 30;
  o.more_states = uint64_t(1) << 40;
  return o;
}

// Arrival counts and transaction bytes per (slot, phase) as the program's
// annotations mean them (iter=, phase=): sync.arrival-overflow,
// sync.arrival-underflow, sync.tx-imbalance, the first of each. On hardware
// an arrival lands in its slot's current phase whatever phase it means, so
// these are *candidates*: resolveStatics() decides what they become.
std::vector<Violation> staticViolations(const System& sys);

// An arrival seen landing in another phase than its op means.
struct Landing {
  int proc = -1, pc = -1;
  int64_t meant = 0, landed = 0;
};

// What the static candidates become, given the violations the runs met
// (`violations`, the engine's, traces and all; a deadlock that a candidate
// explains is already that candidate, traced). When some run went wrong,
// every candidate is an error (the likely cause; a traced copy found by a
// run is kept, else the static one is added). When every run was clean, the
// lowered program is correct whatever the annotations say: the candidates
// and the first landing seen (if any) become one
// sync.phase-annotation-mismatch warning. docs/semantics.md "Phase
// annotations".
void resolveStatics(const System& sys, const std::vector<Violation>& statics, const std::optional<Landing>& landing,
                    std::vector<Violation>& violations, std::vector<Violation>& warnings);

ModelCheckResult explore(const System& sys, const ExploreOptions& opts = {});

// What one step did, for traces shown to users.
struct StepInfo {
  Step step;
  std::string event;               // "waits", "passes", "arrives", "issues", "lands", ...
  int slot = -1;                   // flat mbarrier slot
  int64_t phase = -1;              // phase meant
  int64_t completed = -1;          // completed-phase count of the slot after the step
  int named = -1;
  std::string buffer;              // the byte ranges it touches
};

struct ReplayResult {
  bool valid = false;              // every step was enabled in turn
  int failed_step = -1;            // first step that was not enabled
  std::string error;               // why
  std::vector<StepInfo> steps;     // one per valid step
  // Violations met along the trace (at its steps, and at its end: deadlock,
  // async work at exit), in order, up to the run's end: the first step or
  // state with a violation that ends runs (endsRun), whose violations are
  // the last recorded. A counterexample is confirmed when one of them has
  // its rule.
  std::vector<Violation> violations;
  int ended_at = -1;               // trace length at the run's end, or -1
};
ReplayResult replay(const System& sys, const Trace& trace);

// A shorter trace that still replays and still ends in a violation of
// `rule` (greedy: drops one step at a time, from the end, while that
// holds). Breadth-first traces are shortest in the reduced graph; this
// also drops the steps that only the reduction forced in (landings of
// unrelated loads, instances that play no part). Each try is a replay of
// the candidate (from the kept state after the prefix it shares with the
// current trace, on one model): past `budget_ms` the trace shortened so far is returned
// (it still replays and ends in the violation), so a trace thousands of
// steps long does not stall the check.
Trace minimizeTrace(const System& sys, const Trace& trace, const std::string& rule, unsigned budget_ms = 2000);
// The same within a work budget (the same trace at any load): each try is
// charged as a replay of the whole candidate, each of its steps an expanded
// state with the programs' instructions; past the budget's work cap or wall-clock safety limit the
// trace shortened so far is returned.
Trace minimizeTrace(const System& sys, const Trace& trace, const std::string& rule, ProofBudget& budget);

}  // namespace cake::encoder
