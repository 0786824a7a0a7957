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
  int fresh_ = 0;
};

// ------------------------------------------------------------------ BMC

struct BmcOptions {
  int max_depth = 1000;
  Limits limits;                 // per query; timeout_ms also caps the whole run
  // Which bad predicates to look for (indices into Sts::bads()); empty = all.
  std::vector<int> only_bads;
  // Values for the parameters (a concrete run); unset ones stay symbolic.
  std::vector<std::optional<int64_t>> param_values;
};

struct BmcStep {
  int transition = -1;           // index into Sts::transitions()
  int tag = -1;                  // its tag
};

struct BmcResult {
  Answer answer = Answer::Error;  // Correct: no bad state reachable within the
                                  // bound; Incorrect: trace found
  std::string reason;
  bool complete = false;          // Correct and every run ended within the bound
  int depth = 0;                  // depth explored / length of the trace
  std::vector<BmcStep> trace;     // Incorrect: the steps, in order
  int bad = -1;                   // Incorrect: index into Sts::bads()
  std::vector<int64_t> param_values;          // Incorrect: the parameters of the run
  std::vector<std::vector<int64_t>> states;   // Incorrect: states 0..depth (Bool as 0/1)
  double seconds = 0;
  int queries = 0;
};

BmcResult bmc(const Sts& sts, const BmcOptions& opts);

// ------------------------------------------------------------------ proofs

struct ProofOptions {
  Limits limits;
  std::vector<int> only_bads;     // empty = all
  bool kinduction_fallback = false;
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
