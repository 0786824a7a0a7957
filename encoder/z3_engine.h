// The Z3 side of the model checker: public, Z3-free API.
//
//  * bmcCheck(): bounded model checking of a flat System (encoder/system.h)
//    for its concrete parameter values, in bit-vectors, shortest
//    counterexample per rule, with the simulator's semantics (a run ends at
//    its first violation). Every trace is replayed by the simulator before
//    it is reported; a trace the simulator does not confirm is an internal
//    error, never a finding.
//  * proveSchedule(): a proof for every trip count (Spacer / k-induction)
//    of a schedule whose loop bounds depend on scalar parameters; see
//    encoder/z3_param.cpp for the supported shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "encoder/engine.h"
#include "encoder/system.h"

namespace cake::encoder {

// Per-query resource limits for Z3 (checks::CheckOptions carries the same
// numbers: timeout_ms, memory_mb).
struct Limits {
  unsigned timeout_ms = 10000;  // per solver query
  unsigned memory_mb = 4096;    // Z3's memory_max_size
  uint64_t rlimit = 0;          // Z3 resource limit (deterministic); 0 = none
  // What one of this query's resource units costs, in the units of
  // ProofBudget::kPerRlimit (fitted on queries of the bit-vector and
  // difference-logic solvers): with rlimit > 0 the query runs out after
  // rlimit / rlimit_weight of Z3's units and each unit it spends counts
  // rlimit_weight times (z3w::check). Z3-po's simplex pass sets it
  // (kSimplexRlimitWeight, docs/z3.md "The simplex pass's resource units").
  uint64_t rlimit_weight = 1;
};

// ------------------------------------------------------------------ BMC

struct Z3BmcOptions {
  Limits limits;          // timeout_ms bounds the whole BMC run
  int max_depth = -1;     // -1: the longest possible run (complete search)
  bool stop_at_first = false;
  bool replay = true;     // replay every trace on the simulator (keep on)
  // Engine variants, for measuring them (docs/z3.md "Engine options"); the
  // defaults are what `cake check` uses.
  bool bit_blast = true;        // false: Z3's incremental SMT core instead of a fresh qfbv solver per query
  bool full_depth = true;       // false: deepen one step at a time (with max_depth < 0 only)
  bool partial_order = true;    // false: no partial-order reduction of commuting steps
  std::string tactic = "qfbv";  // the bit-blasting solver's tactic ("bb": simplify, bit-blast, sat)
  std::string dump_smt2;        // non-empty: write each bit-blasted query there (SMT-LIB 2)
  bool trace = false;           // print each query's answer and time to stderr
};

struct Z3BmcResult {
  // engine "z3-bmc". Pass: no violation in any run (the search was
  // complete); Violation: one per rule, each replayed and confirmed by the
  // simulator (static findings included, as explore() does); Unknown:
  // budget or unsupported, detail says why.
  ModelCheckResult result;
  bool internal_error = false;  // Z3 and the simulator disagree on a trace
  std::string error;            // which rule, which step
  bool complete = false;        // every run ended within the depth bound
  int depth = 0;                // depth explored
  int queries = 0;
  int width = 0;                // bit-vector width used
};

Z3BmcResult bmcCheck(const System& sys, const Z3BmcOptions& opts = {});

// Debugging aid: runs `trace` through the Z3 encoding concretely (by
// substitution) and lists the violations it meets, one per line
// ("step 3 (...): sync.race", "state 5: sync.deadlock"), or where the
// encoding refuses a step.
std::string z3ReplayTrace(const System& sys, const Trace& trace);

}  // namespace cake::encoder
