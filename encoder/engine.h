// The result type every model-checking engine returns, and the hook through
// which a proof engine (Z3: Spacer / k-induction) plugs into the model
// checker (checks/model_check.cpp).
//
// Engines talk about a System (encoder/system.h): a violation names
// processes and program counters of that System, and its trace is a list of
// Steps that encoder/simulator.h's replay() validates step by step. A
// counterexample from any engine is replayed before it is shown.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoder/system.h"

namespace cake::encoder {

// One step of an execution of a System.
struct Step {
  enum class Kind {
    Exec,      // process `proc` executes program[pc] (pc = its current pc)
    Land,      // the TMA load that `proc` issued at `pc` lands (its bytes arrive)
    Complete,  // the sm_100a MMA group that `proc` closed at `pc` (an MmaCommit
               // with a barrier) completes and arrives on its slot
  };
  Kind kind = Kind::Exec;
  int proc = -1;
  int pc = -1;
  bool operator==(const Step&) const = default;
};
using Trace = std::vector<Step>;
std::string stepToString(const System& sys, const Step& st);

// An instruction of the System, with what to say about it.
struct Site {
  int proc = -1;
  int pc = -1;
  std::string message;
};

struct Violation {
  std::string rule;            // "sync.race", ... (checks/sync_rules.cpp)
  std::string message;         // one line
  Site primary;                // the op at fault (proc -1: the declaration, see barrier)
  std::vector<Site> others;    // the other side(s), as notes
  int slot = -1;               // flat mbarrier slot involved, or -1
  int named = -1;              // named barrier involved, or -1
  int64_t phase = -1;          // phase meant, or -1
  int64_t completed = -1;      // the slot's completed-phase count at the event, or -1
  std::string buffer;          // "smem_a[1] bytes [0, 16384)"
  bool at_declaration = false; // the barrier declaration is the primary location
                               // (arrival counts: init_count vs arrivals)
  Trace trace;                 // from the initial state; empty for static findings
  std::optional<Binding> binding;  // the parameter values the trace runs on
  // Lap induction (binding->replace set): met before the trip count was
  // fixed; binding->replace_value is then the least trip count it allows.
  bool trip_open = false;
};

// Whether a violation of `rule` ends the run it occurs on (docs/semantics.md
// "Which violations end a run"). A synchronization error (a wait passing on
// the wrong phase, an extra arrival, a lost phase, a deadlock, ...) leaves
// the barriers in a state no correct program reaches, so whatever follows is
// a consequence: the run ends there. A data hazard (sync.race,
// data.stale-read, proxy.missing-fence) corrupts bytes, and in the model no
// wait, arrival or landing ever depends on bytes: the run goes on exactly as
// the hardware's would, so later findings on it (an unwaited load at exit,
// a deadlock) are real and are reported. Every engine follows this.
bool endsRun(std::string_view rule);

enum class Outcome {
  Pass,       // no violation in the explored system(s)
  Proved,     // no violation for every parameter value (proof engines only)
  Violation,  // at least one violation (replayed)
  Unknown,    // budget exceeded / unsupported: never a pass
};
std::string_view outcomeName(Outcome o);

struct ModelCheckResult {
  Outcome outcome = Outcome::Unknown;
  std::vector<Violation> violations;  // at most one per rule, shortest trace first
  // Findings of severity warning (sync.phase-annotation-mismatch): they do
  // not change the outcome.
  std::vector<Violation> warnings;
  std::string detail;                 // why unknown, engine notes
  std::string engine;                 // "explicit", "z3-bmc", "spacer", ...
  // An unfinished proof (Unknown) that met a violation on a system built for
  // concrete values names them here: the caller runs the bounded check at
  // each (checks/model_check.cpp), so that a bug the covering values missed
  // (one block index with a large enough problem size) is reported.
  std::vector<Binding> witnesses;
  // Explicit engine: why its search stopped before it expanded every state
  // it reached (work budget, wall clock, state cap); empty when it finished.
  // A violation met before the cut is real (traced), but the rules only the
  // cut-off states lead to are missing: a rule set compared with another
  // engine's (`--engine both`) must come from a search with this empty.
  std::string cut;
  uint64_t states = 0;                // explicit engine: states visited
  uint64_t transitions = 0;
  double seconds = 0;
};

// A request for the sync/data/proxy properties of one schedule.
struct ModelCheckQuery {
  const ir::Schedule* schedule = nullptr;
  ir::Target target = ir::Target::Unspecified;
  std::vector<Binding> bindings;      // the concrete values the bounded check uses
  unsigned timeout_ms = 10000;
  unsigned memory_mb = 4096;
  uint64_t max_states = 2000000;      // explicit engine, per binding
};

// A proof engine answers Proved, Violation (with Violation::binding set and a
// trace replayable on buildSystem(binding)),
// or Unknown. Unset by default; whoever links the Z3 engine sets it at start
// (e.g. the check driver or the cli). runModelChecker() calls it after the
// bounded check found nothing.
using ProofEngine = std::function<ModelCheckResult(const ModelCheckQuery&)>;
void setProofEngine(ProofEngine engine);
const ProofEngine& proofEngine();

}  // namespace cake::encoder
