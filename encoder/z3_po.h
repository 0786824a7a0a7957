// The Z3 partial-order engine (docs/z3.md "Partial-order encoding"): decides
// the synchronization of a flat System (encoder/system.h) for its concrete
// parameter values without enumerating interleavings.
//
// In the style of Alglave, Kroening and Tautschnig ("Partial orders for
// efficient BMC of concurrent software", CAV 2013) every Step a run can take
// (Exec of each instruction, Land of each TMA load, Complete of each sm_100a
// MMA group with a barrier) is one event with a symbolic clock; a run is a
// prefix of the clock order. The state before an event is a function of
// which events precede it: arrivals, transaction bytes, completed phases
// (one "completion clock" per slot and phase), named-barrier generations,
// the last write of every byte, proxy fences, async groups. Each rule is a
// formula over the clocks (a race: two conflicting byte ranges whose live
// intervals overlap; a deadlock: a cut where every unfinished process's
// next event is disabled), and the simulator's "a synchronization error
// ends its run" (encoder::endsRun) is a constraint on every event before
// the cut.
//
// Every counterexample is turned into a Trace of Steps and replayed with
// encoder::replay() before it is reported; one that does not replay (or
// meets an earlier violation) is an internal error with the trace, never a
// finding and never a pass.
#pragma once

#include <set>
#include <string>

#include "encoder/engine.h"
#include "encoder/system.h"
#include "encoder/z3_engine.h"

namespace cake::encoder {

struct PoOptions {
  Limits limits;              // timeout_ms bounds the whole check (all queries)
  bool stop_at_first = false; // stop after the first rule found (else: every rule)
  // Rules already reported for this schedule (on smaller bindings): only a
  // rule outside `known` is looked for, with runs that stop at their first
  // synchronization error (query 2 of docs/z3.md), and the first query
  // ("is any rule violated?") is not asked. The outcome is then Pass when no
  // rule outside `known` is violated (the binding may still violate one in
  // it). Not used when the system has static candidates (their resolution
  // needs to know whether some run goes wrong). checks/model_check.cpp
  // passes the rules it reported once it has a finding, so the verdict
  // (fail) cannot change; docs/z3.md "Later bindings of a failing schedule".
  std::set<std::string> known;
  // Clocks and counters as bit-vectors instead of integers (for comparing
  // the two encodings; integers are faster: difference logic knows that
  // clocks are transitive).
  bool bit_vectors = false;
  // Diagnostics: the first query ("is any rule violated?") asked one rule
  // at a time, in order, until one is satisfiable -- the same answer (the
  // disjunction is unsat exactly when each rule's query is), with each
  // rule's cost on its own line of `profile` ("rule NAME:"). Set by
  // `cake check` when CAKE_PO_PROFILE=rules (checks/sync_engine.cpp).
  bool by_rule = false;
};

// Limits::rlimit_weight of the simplex pass (smt.arith.solver=2) of a
// query with a resource limit: its resource units cost about this many
// times those of the difference-logic pass (docs/z3.md "The simplex pass's
// resource units").
inline constexpr uint64_t kSimplexRlimitWeight = 8;

struct PoResult {
  // engine "z3-po". Pass: no run violates any rule (complete); Violation:
  // one per rule, each replayed and confirmed by the simulator (static
  // findings included, as explore() reports them); Unknown: Z3 gave up or
  // the system has a shape the encoding does not cover (detail says which).
  ModelCheckResult result;
  bool internal_error = false; // a Z3 trace the simulator did not confirm
  std::string error;           // which rule, the trace, what the simulator saw
  int queries = 0;
  int events = 0;              // events of the encoding
  int width = 0;               // bit-vector width of clocks and counters
  // Where the time went (CPU of the calling thread): building the encoding
  // vs the solver, and per query Z3's own statistics (conflicts, decisions,
  // the formula's size) -- printed by `cake_bench_sync_engines --verbose`.
  double build_cpu = 0, solve_cpu = 0;
  std::string profile;
};

PoResult poCheck(const System& sys, const PoOptions& opts = {});

}  // namespace cake::encoder
