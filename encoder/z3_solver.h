// A thin wrapper around Z3 in the spirit of Alive2's smt/ layer: every query
// gets a per-query timeout and a memory cap, and its outcome is one of four
// strict kinds. Z3's `unknown` is never a pass: it becomes FailedToProve with
// Z3's own reason ("timeout", "max. memory exceeded", "canceled",
// "incomplete quantifiers", ...). Exceptions become Error.
//
// Internal to encoder/ (it includes <z3++.h>); the public, Z3-free API is
// encoder/z3_engine.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <z3++.h>

#include "encoder/z3_engine.h"

namespace cake::encoder::z3w {

// Outcome of one "is the bad formula satisfiable?" query.
enum class Answer {
  Correct,        // unsat: the property holds (no bad state / no model)
  Incorrect,      // sat: a model (counterexample) exists
  FailedToProve,  // unknown: timeout, memory, incompleteness (reason says which)
  Error,          // Z3 threw, or the query was malformed
};
std::string_view answerName(Answer a);

struct QueryResult {
  Answer answer = Answer::Error;
  std::string reason;   // for FailedToProve / Error
  double seconds = 0;
};

// The bits of an unsigned bit-vector that holds 0..v (at least 1, at most 62).
inline int bitsFor(int64_t v) {
  int b = 1;
  while ((int64_t(1) << b) <= v && b < 62) ++b;
  return b;
}

// Sets the process-wide memory cap (Z3's global `memory_max_size`, in MB).
// Z3 only has a global knob for this; it is set before each query from the
// limits, so the last caller wins (queries in cake run one at a time).
void applyGlobalLimits(const Limits& lim);

// Solver parameters for a query under `lim`: timeout and rlimit.
z3::params solverParams(z3::context& c, const Limits& lim);

// Checks `s` (with optional assumptions). On Incorrect the model is
// available from s.get_model().
// Z3's reason for an unknown answer, named uniformly: an interrupt at the
// budget is "timeout after N s", a resource or memory limit says which.
std::string normalizeReason(std::string reason, const Limits& lim, double seconds);

// Every time budget of a query is enforced by this watchdog, never by Z3's
// own "timeout" parameter: Z3 4.8's timer can deadlock when a short budget
// expires as the search starts (seen: a 1 ms budget on nonlinear arithmetic
// blocked forever in the timer's mutex under load). The watchdog interrupts
// the context once timeout_ms have passed, and again every 20 ms until it
// is destroyed, so a budget is always a bound. 0: no budget.
//
// One long-lived thread serves every Watchdog of the process (a deadline
// queue): the layout gates run thousands of small budgeted queries, and a
// thread per query cost more than most of them. After the destructor
// returns the context is never interrupted again.
class Watchdog {
 public:
  Watchdog(z3::context& c, unsigned timeout_ms);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  uint64_t id_ = 0;  // 0: no budget, nothing registered
};

// `again`: a further check of a solver already checked (an incremental
// query: one more constraint added), whose work is its resource units only;
// the per-query charge (threadQueryWork().queries, encoder/proof_budget.h)
// stands for making a solver and its formula, which that check does not.
QueryResult check(z3::solver& s, const Limits& lim,
                  const std::vector<z3::expr>& assumptions = {}, bool again = false);

// Runs `solve` as check() runs a solver's check: Z3's memory cap set, the
// watchdog on the context of `meter`, and the resource units that context
// spends (read from `meter`, any solver of it) counted on this thread.
// `solve` answers, and sets Z3's reason where it answers unknown
// (encoder/integer_solver.h asks several solvers in turn this way).
QueryResult checkWith(z3::solver& meter, const Limits& lim, bool again,
                      const std::function<z3::check_result(std::string& reason)>& solve);

// The queries check() ran on this thread so far and the Z3 resource units
// (`rlimit count`) they spent: deterministic work, which the proof's
// budget charges (encoder/proof_budget.h).
struct QueryWork {
  uint64_t queries = 0;
  uint64_t rlimit = 0;
};
QueryWork threadQueryWork();
// Adds `w` to this thread's count: the work of a query answered from a
// record of the same query (encoder/bv_prover.cpp, the holds cache), so
// that a budget charges it as if it ran again.
void addThreadQueryWork(const QueryWork& w);
// Takes `w` off this thread's count again (at most what it holds): such a
// query run after all, whose own work check() counted.
void takeThreadQueryWork(const QueryWork& w);

// Spacer / fixedpoint query: Correct when `query` is unreachable.
QueryResult query(z3::fixedpoint& fp, z3::expr query, const Limits& lim);

// An optimization query (z3::optimize: its objectives set) under `lim`, with
// check()'s limits, watchdog and answers (Incorrect: the optimum's model is
// available from o.get_model()). Its work is not counted in
// threadQueryWork(): a proof's budget does not charge the optimizer's
// queries (docs/z3.md, "the optimizer's queries").
QueryResult check(z3::optimize& o, const Limits& lim);

// Wall-clock budget shared by several queries (a BMC run is many small
// queries): remaining() shrinks the per-query timeout.
class Deadline {
 public:
  explicit Deadline(unsigned total_ms);
  unsigned remainingMs() const;
  bool expired() const { return remainingMs() == 0; }
  double elapsedSeconds() const;
 private:
  std::chrono::steady_clock::time_point start_;
  unsigned total_ms_;
};

}  // namespace cake::encoder::z3w
