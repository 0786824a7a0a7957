// An adversarial differential audit of the proofs for every trip count
// (docs/z3.md "Soundness audit"): mutants of the known-good corpus files
// (gate/mutate.h, every operator at every site, or a seeded sample) are
// checked as `cake check` checks them (checks/model_check.h: the bounded
// check, then lap induction, encoder/trip_proof.h), and each verdict is
// held against the explicit-state simulator on values the check did not
// use:
//   * a schedule whose synchronization is *proved* is explored again at
//     larger parameter values than every covering value the bounded check
//     used (more K iterations, more tiles, larger grids and block indices,
//     each inside the lm.assume facts): any violation there is a proof that
//     is wrong ("proved-but-violating");
//   * a schedule the bounded check finds broken is handed to the proof
//     directly (with the covering values as its witness): it must never
//     answer Proved ("bad-but-proved").
// Either is a discrepancy. The simulator is the oracle (as for the mutants'
// labels); nothing here decides by Z3.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "encoder/engine.h"
#include "encoder/system.h"
#include "gate/mutate.h"
#include "ir/schedule.h"

namespace cake::checks::audit {

struct AuditOptions {
  // `cake check`'s budgets (work, deterministic: docs/z3.md "The proof's
  // budget"); the wall clock is only a safety limit.
  unsigned proof_timeout_ms = 3000;
  unsigned bounded_timeout_ms = 10000;
  unsigned wall_ms = 600000;
  // The deep check: at most this many larger bindings per proved schedule,
  // each explored to at most deep_states states (beyond: counted as too
  // large, never as a pass or a violation), and no system with more than
  // deep_growth times the instructions of the largest covering one.
  int deep_bindings = 8;
  uint64_t deep_states = 200000;
  int deep_growth = 4;
  // and each within this many seconds' worth of work (encoder/proof_budget.h:
  // deterministic; beyond: cut as well)
  double deep_work_s = 1.0;
  // The proof run on a schedule the bounded check found broken.
  unsigned bad_proof_ms = 3000;
  // Tests only: the proof run on a broken schedule (unset: lap induction,
  // encoder/trip_proof.h), to show that a wrong proof is caught.
  std::function<encoder::ModelCheckResult(const ir::Schedule&, const std::vector<encoder::Binding>&)> prove;
};

// One schedule of one audited file (an original or a mutant).
struct ScheduleAudit {
  std::string file;        // the original's path, or the mutant's relative path
  std::string schedule;
  std::string verdict;     // `cake check`'s sync verdict: proved / checked / counterexample / unknown / error
  std::string engine;      // proved: the argument
  std::string bounded_rule;  // counterexample: the first rule
  bool bad_proof_run = false;  // the proof was run on the broken schedule
  std::string bad_proof;       // its outcome (proved / violation / unknown)
  int deep_checked = 0;    // larger bindings explored in full
  int deep_too_large = 0;  // larger bindings cut at deep_states
  std::vector<std::string> deep_values;  // bindingToString of each explored one
  std::string discrepancy;  // non-empty: what is wrong
};

// Bindings larger than every covering binding: each parameter's largest
// covering value stepped on by the gcd of its covering values (one, two
// and three steps), doubled and tripled, one parameter at a time and all
// together; the grid and block index grown where a covering binding varies
// them. Each satisfies every lm.assume fact (evaluated, cluster-aware as
// the bounded check evaluates them), ordered as given; duplicates removed.
std::vector<encoder::Binding> largerBindings(const ir::Schedule& s, const std::vector<encoder::Binding>& covering);

// The deep check of a proved schedule: up to opts.deep_bindings of
// largerBindings() whose systems differ from every covering one's (and
// from each other's) and have at most opts.deep_growth times the largest
// covering system's instructions, spread over their sizes, the largest
// included; each explored by the simulator within opts.deep_states states.
// A violation sets a.discrepancy ("proved-but-violating"); counts and
// values go to a.deep_*.
void deepCheck(const ir::Schedule& s, const std::vector<encoder::Binding>& covering, const AuditOptions& opts,
               ScheduleAudit& a);

// Audits one schedule (its verdict as `cake check` gives it, then the deep
// check or the proof of a broken schedule).
ScheduleAudit auditSchedule(const ir::Schedule& s, const AuditOptions& opts);

// Audits every schedule of a source text (front-end errors: none).
std::vector<ScheduleAudit> auditText(const std::string& path, const std::string& text, const AuditOptions& opts);

// The known-good originals below `root` (a corpus folder; corpus/mutants
// left out), sorted by path, with their text.
std::vector<mutate::Original> knownGoodOriginals(const std::string& root);

// Whether `path` is in the seeded 1-in-`every` sample (a hash of both).
bool sampled(const std::string& path, int every, uint64_t seed);

// A deterministic sample of the mutants of `originals`: every mutant whose
// hash of (relative path, seed) is 0 modulo `every`, at most `per_file` of
// each original (0: no cap), in a seeded hash order (a run stopped by a
// time box has audited a uniform sample). `enumerated` gets the number
// before sampling.
std::vector<mutate::Mutant> sampleMutants(const std::vector<mutate::Original>& originals, int every, int per_file,
                                          uint64_t seed, size_t* enumerated = nullptr);

// A one-line summary of a ScheduleAudit ("PROVED file schedule ... deep 4 ...").
std::string auditLine(const ScheduleAudit& a);

}  // namespace cake::checks::audit
