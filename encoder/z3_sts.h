// A symbolic transition system over Z3 integer/Boolean state variables, and
// the three ways cake asks Z3 about one:
//
//  * bmc():   bounded model checking, shortest counterexample first, with an
//             interleaving transition relation (one guarded command per step);
//  * chc():   a proof for every value of the parameters with Spacer (Z3's
//             Horn-clause engine): one relation Inv(state, params), one rule
//             per guarded command, one query per bad-state predicate group;
//  * kind():  k-induction (plain, no invariant strengthening) as a fallback.
//
// Internal to encoder/. Expressions are built over the template constants
// that var(), param() and local() return; the engines substitute per step.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <z3++.h>

#include "encoder/z3_solver.h"

namespace cake::encoder::z3w {

class Sts {
 public:
  explicit Sts(z3::context& c);
  z3::context& ctx() const { return *ctx_; }

  // A state variable with its initial value (an expression over params).
  int addInt(const std::string& name, z3::expr init);
  int addInt(const std::string& name, int64_t init) { return addInt(name, ctx_->int_val(init)); }
  int addBool(const std::string& name, z3::expr init);
  int addBool(const std::string& name, bool init) { return addBool(name, ctx_->bool_val(init)); }
  // A state variable of any sort (bit-vectors for concrete systems).
  int addVar(const std::string& name, z3::sort sort, z3::expr init);
  z3::expr var(int i) const { return vars_[i]; }
  const std::string& varName(int i) const { return names_[i]; }
  int numVars() const { return static_cast<int>(vars_.size()); }

  // A parameter: an integer fixed for the whole run (a trip count, K).
  z3::expr param(const std::string& name);
  const std::vector<z3::expr>& params() const { return params_; }
  // Facts about the parameters (lm.assume, K >= 0, T == cdiv(K, 64)).
  void assume(z3::expr e) { assumes_.push_back(e); }

  // A fresh existential integer, local to the transition or bad predicate
  // that lists it (e.g. q, r with k == 4 q + r, 0 <= r < 4).
  z3::expr local(const std::string& name);

  struct Transition {
    std::string name;
    int tag = -1;                                  // the client's id for the step
    z3::expr guard;
    std::vector<std::pair<int, z3::expr>> updates; // var -> next value; others keep theirs
    std::vector<z3::expr> locals;
  };
  struct Bad {
    std::string rule;        // rule id, e.g. "sync.race"
    int tag = -1;            // the client's id (e.g. which op)
    z3::expr pred;           // over the state (and params, locals)
    std::vector<z3::expr> locals;
    int transition = -1;     // the bad event is firing this transition (its
                             // guard is part of pred); -1: a state property
  };
  int addTransition(Transition t);
  // States that end a run without being bad (every process has exited).
  void setStop(z3::expr e) { stop_ = e; }
  const std::optional<z3::expr>& stop() const { return stop_; }
  int addBad(Bad b);
  const std::vector<Transition>& transitions() const { return trans_; }
  const std::vector<Bad>& bads() const { return bads_; }
  z3::expr initOf(int v) const { return inits_[v]; }
  const std::vector<z3::expr>& assumes() const { return assumes_; }

 private:
  z3::context* ctx_;
  std::vector<z3::expr> vars_, inits_;
  std::vector<std::string> names_;
  std::vector<z3::expr> params_, assumes_;
  std::vector<Transition> trans_;
  std::vector<Bad> bads_;
  std::optional<z3::expr> stop_;
  int fresh_ = 0;
};

// ------------------------------------------------------------------ BMC
//
// Shortest counterexample per rule: depth by depth, every rule (Bad::rule)
// not found yet is looked for at the current depth; the first depth at
// which a rule is reachable gives its trace. With `violations_end_paths`
// (the simulator's semantics) a run stops at its first violation and at a
// stop state: a rule only counts when reachable along a violation-free run.

struct BmcOptions {
  int max_depth = 1000;
  Limits limits;                 // timeout_ms caps the whole run
  std::vector<int> only_bads;    // indices into Sts::bads(); empty = all
  std::vector<std::optional<int64_t>> param_values;  // unset: symbolic
  bool violations_end_paths = false;
  bool stop_at_first = false;    // stop at the first rule found
  bool bit_blast = false;        // a fresh qfbv-tactic solver per query (bit-vector systems)
  // Unroll to max_depth at once and search every rule there first (the
  // client promises that every run ends within max_depth).
  bool full_depth = false;
  // Partial-order reduction: pairs (a, b) of transitions that must not be
  // taken as step d = a, step d+1 = b (b then a reaches the same state,
  // meeting the same violations). The client vouches for soundness.
  std::vector<std::pair<int, int>> forbidden_adjacent;
  std::string tactic = "qfbv";   // with bit_blast: the solver's tactic ("bb": simplify, bit-blast, sat)
  std::string dump_smt2;         // with bit_blast: write each query there (SMT-LIB 2)
  bool trace = false;            // each query's answer and time to stderr
};

// Variables read / written by each transition (guard, updates, and the
// predicates of the bads tied to it), for independence.
struct Footprint {
  std::vector<std::set<int>> reads, writes;
};
Footprint footprints(const Sts& sts);

struct BmcStep {
  int transition = -1;           // index into Sts::transitions()
  int tag = -1;                  // its tag
};

struct BmcFinding {
  std::string rule;
  int bad = -1;                  // index into Sts::bads()
  int depth = 0;                 // states before the violation
  std::vector<BmcStep> trace;    // ends with the violating transition, if any
  std::vector<int64_t> param_values;
  std::vector<std::vector<int64_t>> states;  // 0..depth (Bool as 0/1)
};

struct BmcResult {
  Answer answer = Answer::Error;  // Correct: no rule reachable within the
                                  // bound; Incorrect: findings non-empty;
                                  // FailedToProve: budget (findings so far kept)
  std::string reason;
  bool complete = false;          // every run ended within the bound
  int depth = 0;                  // depth explored
  std::vector<BmcFinding> findings;  // one per rule, in the order found
  double seconds = 0;
  int queries = 0;
  // the first finding, for single-property callers
  int bad = -1;
  std::vector<BmcStep> trace;
};

BmcResult bmc(const Sts& sts, const BmcOptions& opts);

// ------------------------------------------------------------------ proofs

struct ProofOptions {
  Limits limits;
  std::vector<int> only_bads;     // empty = all
  bool kinduction_fallback = false;
  // A known invariant (over the state variables and parameters), given to
  // Spacer as a lemma of the relation (add_cover at level infinity).
  std::optional<z3::expr> hint;
  // Extra fixedpoint parameters ("spacer.ground_pobs" -> "false", ...).
  std::vector<std::pair<std::string, std::string>> spacer_params;
  int kind_max_k = 8;
};

struct ProofResult {
  Answer answer = Answer::Error;  // Correct: proved for every parameter value
                                  // allowed by the assumptions; Incorrect:
                                  // Spacer found a reachable bad state
  std::string reason;
  std::string engine;             // "spacer", "k-induction"
  int bad = -1;                   // Incorrect: which bad (when known)
  double seconds = 0;
};

// One Spacer query for the disjunction of the selected bads.
ProofResult chc(const Sts& sts, const ProofOptions& opts);
// Plain k-induction for k = 1..max_k (no strengthening).
ProofResult kinduction(const Sts& sts, const ProofOptions& opts);

}  // namespace cake::encoder::z3w
