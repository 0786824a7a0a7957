// Differential testing of the two model-checking engines: the explicit-state
// simulator (encoder/simulator.h, the reference semantics) and Z3 BMC
// (encoder/z3_engine.h) on random small schedules (encoder/testing/random_schedule.h).
// They agree when they report the same set of rules (the explorer's
// persistent sets may give longer traces than BMC's shortest ones, so trace
// lengths are not compared); every BMC trace is also replayed.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <set>
#include <string>

#include "encoder/testing/random_schedule.h"
#include "encoder/z3_engine.h"
#include "encoder/z3_po.h"

namespace cake::encoder {

struct DiffCase {
  std::string description;
  bool built = false;               // buildSystem succeeded
  bool decided = false;             // both engines decided (no Unknown)
  bool agree = false;
  bool internal_error = false;      // a BMC trace the simulator did not confirm
  std::set<std::string> sim_rules, bmc_rules;
  std::string detail;
  double sim_seconds = 0, bmc_seconds = 0;
  int depth = 0;
};

// A Z3 engine under test: its result on one System, and whether one of its
// traces failed to replay (an internal error).
struct DiffRun {
  ModelCheckResult result;
  bool internal_error = false;
  std::string error;
  int depth = 0;
};
using DiffEngine = std::function<DiffRun(const System&)>;
DiffEngine bmcEngine(const Z3BmcOptions& opts);  // Z3 BMC (z3_engine.h)
DiffEngine poEngine(const PoOptions& opts);      // the partial-order engine (z3_po.h)

DiffCase diffOne(const RandomSchedule& rs, const DiffEngine& engine);
inline DiffCase diffOne(const RandomSchedule& rs, const Z3BmcOptions& opts) { return diffOne(rs, bmcEngine(opts)); }

struct DiffStats {
  int runs = 0, not_built = 0, undecided = 0, agree = 0, disagree = 0, internal_errors = 0;
  std::map<std::string, int> rules;  // rule -> schedules where both found it
  int passing = 0;                   // both found nothing
  double bmc_median = 0, bmc_max = 0, sim_max = 0, seconds = 0;
};

// Runs n schedules from `seed` (or until budget_s seconds have passed, if
// positive); writes one line per disagreement (and per case when verbose)
// to `log` if given.
DiffStats runDifferential(uint64_t seed, int n, const RandomScheduleOptions& ro, const DiffEngine& engine,
                          std::ostream* log, bool verbose = false, double budget_s = 0);
inline DiffStats runDifferential(uint64_t seed, int n, const RandomScheduleOptions& ro, const Z3BmcOptions& bo,
                                 std::ostream* log, bool verbose = false, double budget_s = 0) {
  return runDifferential(seed, n, ro, bmcEngine(bo), log, verbose, budget_s);
}

}  // namespace cake::encoder
