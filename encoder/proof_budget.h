// The budget of the proof for every trip count (encoder/trip_proof.h).
//
// The proof is cut by *work*, counted deterministically, not by time: the
// same schedule gets the same verdict at any load of the machine (a
// wall-clock budget of 3 s proved 198 to 253 of the 276 known-good corpus
// files at different loads, issue 11). The proof counts what it does
// (Tally: states expanded, the instructions of the programs each expansion
// walks, instructions of the systems it builds, Z3 queries and the Z3
// resource units they spent) and weighs each count by the nanoseconds of
// CPU it costs on the 2-core development machine: a unit is an estimated
// nanosecond, fitted over the proofs of the known-good corpus (median
// predicted/actual CPU 1.01, p10 0.67, p90 1.17 over the 163 proofs that
// took at least 0.05 s; bench/proof_budget_calibrate.sh and
// bench/proof_budget_fit.py; docs/z3.md "The proof's budget"). So
// `cake check --proof-timeout S` allows S * 1e9 units, about S seconds of
// that machine's CPU.
//
// A wall-clock limit stays as a safety net (nothing hangs): the rest of
// the obligation's --timeout. Whichever runs out first ends the proof with
// the verdict *unknown* and says which one did; a proof is never cut into
// "proved".
//
// The Z3 queries of the proof get a resource limit (Z3's rlimit, again
// work, not time) from the same seconds: kRlimitPerSecond.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cake::encoder {

struct System;  // encoder/system.h

// The same budget bounds the model checker's bounded check
// (checks/model_check.cpp: the covering values' queries, the systems built,
// the explicit explorations, the shortening of counterexamples) with its own
// work cap, `cake check --bounded-timeout` (docs/z3.md "The bounded
// check's budget"): one unit, one calibration.
class ProofBudget {
 public:
  // Work units per second of the proof's CPU (a unit is an estimated ns).
  static constexpr uint64_t kUnitsPerSecond = 1'000'000'000;
  // Z3 resource units granted to each query of the proof per second of the
  // budget (the proof's queries on the corpus need at most ~30 million).
  static constexpr uint64_t kRlimitPerSecond = 30'000'000;
  // The work units of a budget of `seconds` (0 for 0).
  static uint64_t unitsFor(double seconds);
  // The per-query Z3 resource limit of a budget of `seconds` (at least 1).
  static uint64_t rlimitFor(double seconds);

  // `work`: units (0: no cap on work); `wall_ms`: the safety limit in
  // wall-clock milliseconds (0: none).
  ProofBudget(uint64_t work, unsigned wall_ms);

  // What the proof did, counted (deterministic), and what each costs in
  // units (ns, fitted to the thread's CPU time over the corpus: the fit
  // gave no weight to successors offered and words hashed once states
  // expanded and their programs' size are counted, so those are 0).
  struct Tally {
    uint64_t expanded = 0;    // states expanded by a search
    uint64_t offered = 0;     // successor states offered to a visited set (new or not)
    uint64_t words = 0;       // their 32-bit words (hashed, compared, copied)
    uint64_t expanded_instrs = 0;  // per expanded state, the instructions of the searched programs
    uint64_t built = 0;       // instructions of the systems the proof built
    // The persistent-kernel explorations (docs/z3.md "One layout for every
    // tile length"): they charge, instead of expanded_instrs, the
    // operations their reduction's windows and closures did, and the
    // instructions of the combined programs laid out (once per grid).
    uint64_t window_ops = 0;
    uint64_t laid_out = 0;
    uint64_t queries = 0;     // Z3 queries (z3w::check on this thread)
    uint64_t rlimit = 0;      // the Z3 resource units they spent
  };
  static constexpr uint64_t kPerExpanded = 4600;
  static constexpr uint64_t kPerOffered = 0;
  static constexpr uint64_t kPerWord = 0;
  static constexpr uint64_t kPerExpandedInstr = 1;
  static constexpr uint64_t kPerBuilt = 600;
  static constexpr uint64_t kPerWindowOp = 20;
  static constexpr uint64_t kPerLaidOut = 10000;
  static constexpr uint64_t kPerQuery = 10'000'000;
  static constexpr uint64_t kPerRlimit = 130;
  void add(const Tally& t);
  // The tally so far, the solver's queries on this thread included.
  Tally tally() const;

  void charge(uint64_t units) { used_ += units; }
  // Raises the work cap by `units` (none without a cap): the persistent
  // proof's narrow first window (encoder/trip_proof.cpp, provePersistent)
  // is a try whose failure goes on as the proof did without it, so the
  // units it spent are granted back to the cap and a proof that fitted the
  // budget before the try still fits it. used() stays the whole work done.
  void grant(uint64_t units) {
    if (work_ > 0) work_ += units;
  }
  // Leaves out of this budget solver work done on this thread that another
  // budget counts (checks/model_check.cpp: the proof run in the middle of
  // the bounded check): `queries` queries, `rlimit` resource units.
  void leaveOut(uint64_t queries, uint64_t rlimit) {
    queries0_ += queries;
    rlimit0_ += rlimit;
  }
  // Units used so far (the solver's queries on this thread included).
  uint64_t used() const;
  uint64_t work() const { return work_; }
  // Units left before the work cap (UINT64_MAX without one; 0 once out).
  uint64_t left() const;
  bool workOut() const { return work_ > 0 && used() > work_; }
  bool wallOut() const;
  // Wall-clock milliseconds left (at least 1; UINT32_MAX without a limit):
  // what a solver query or an inner search may still take.
  unsigned wallLeftMs() const;
  // "" while neither limit is reached; else which one and how far it got.
  std::string exhausted() const;
  // Seconds since construction: wall clock, and CPU of the calling thread
  // (the proof runs on one thread; `cake corpus -j2` runs two proofs on two
  // threads of one process, so the process's CPU clock would count both).
  // For reports only: neither decides a verdict below the safety limit.
  double wallSeconds() const;
  double cpuSeconds() const;

 private:
  uint64_t work_;
  unsigned wall_ms_;
  uint64_t used_ = 0;  // without the solver's queries
  Tally tally_;
  uint64_t queries0_, rlimit0_;  // the thread's solver work at the start
  std::chrono::steady_clock::time_point start_;
  double cpu_start_;
};

// Charges the building of `sys`: Tally::built, an instruction of its
// programs each.
void chargeBuild(ProofBudget& budget, const System& sys);

}  // namespace cake::encoder
