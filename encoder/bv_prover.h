// Bit-vector proofs over a schedule's scalar parameters: the solver behind
// the layout and hardware-contract gates (checks/layout*.cpp).
//
// An ir::Expr is translated into a 64-bit bit-vector term with Python's
// integer semantics (floor `//` and `%`, lm.cdiv, min/max, comparisons and
// short-circuit and/or/not). Python integers do not overflow; a 64-bit term
// can. Every translated expression therefore carries a *definedness*
// condition: no intermediate result leaves the signed 64-bit range and no
// divisor is zero. Where the definedness condition holds, the bit-vector
// value equals the Python value, so the answers below are exact:
//
//   prove(goal)    holds for every assignment allowed by the premises
//                  (the schedule's lm.assume facts, the domains of the free
//                  symbols, and the extra premises given)?  The goal counts
//                  as violated where it is undefined (an overflow or a
//                  division by zero is a finding, not a pass).
//   witness(cond)  some allowed assignment where cond is (defined and) true?
//
// Free symbols: LM.i32 parameters range over [-2^31, 2^31); loop variables
// likewise; lm.instance() over [0, 1024); lm.grid_dim(d) over [1, 2^31) and
// lm.block_idx(d) over [0, grid_dim(d)). Premises narrow them.
//
// Results are strict (Alive2 style): Holds, Fails (with a model), Unknown
// (timeout, memory, unsupported construct: never a pass), Error.
//
// Public and Z3-free: only encoder/*.cpp include <z3++.h>.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "encoder/z3_engine.h"
#include "ir/schedule.h"

namespace cake::encoder {

enum class BvVerdict {
  Holds,    // prove: holds for all allowed values; witness: no allowed value makes it true
  Fails,    // prove: a counterexample; witness: a witness (in `model`)
  Unknown,  // undecided (reason in `detail`)
  Error,    // internal error (reason in `detail`)
};
std::string_view bvVerdictName(BvVerdict v);

// Values of the free symbols in a model. Symbols the model leaves open are
// absent (any value works).
struct BvModel {
  std::map<int, int64_t> params;     // Schedule::params index -> value
  std::map<int, int64_t> loop_vars;  // Schedule::loop_vars index -> value
  std::optional<int64_t> instance;
  std::optional<int64_t> block_idx[3];
  std::optional<int64_t> grid_dim[3];

  bool empty() const;
  // Evaluation environment; symbols the model leaves open get `fill`
  // (so a concrete value exists for every sub-expression of a message).
  ir::EvalEnv env(const ir::Schedule& s, int64_t fill = 0) const;
  // "M = 192, K = 0" with the schedule's names, in parameter order.
  std::string toString(const ir::Schedule& s) const;
  nlohmann::json toJson(const ir::Schedule& s) const;
};

struct BvResult {
  BvVerdict kind = BvVerdict::Error;
  BvModel model;           // Fails: every symbol of the query (goal and the facts it depends on)
  BvModel goal_model;      // Fails: only the symbols the goal itself mentions (for messages)
  // Fails: the model makes the goal undefined (64-bit overflow or division
  // by zero) rather than false.
  bool undefined = false;
  // The goal mentions no free symbol: it was decided by constant folding.
  bool constant = false;
  std::string detail;      // Unknown / Error reason
  double seconds = 0;
};

// The translation key of a free symbol: ('p', parameter), ('v', loop
// variable), ('i', 0) for lm.instance(), ('b', d) / ('g', d) for
// lm.block_idx(d) / lm.grid_dim(d); nullopt for any other kind and for a
// grid dimension outside 0..2 (the encodings refuse it).
std::optional<std::pair<char, int>> freeSymbol(const ir::Expr& e);

class BvProver {
 public:
  // Takes the schedule's lm.assume facts as premises of every query.
  // limits.timeout_ms bounds each query (setBudget: all together).
  BvProver(const ir::Schedule& s, Limits limits = {});
  ~BvProver();
  BvProver(const BvProver&) = delete;
  BvProver& operator=(const BvProver&) = delete;

  // Does `goal` (an integer expression, true when non-zero) hold for every
  // allowed assignment? `premises` are extra facts for this query only.
  BvResult prove(const ir::ExprPtr& goal, const std::vector<ir::ExprPtr>& premises = {});

  // Is there an allowed assignment where `cond` is defined and true?
  // Fails = yes (model is the witness), Holds = no such assignment.
  BvResult witness(const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& premises = {});

  // The largest value of `e` over allowed assignments where it is defined,
  // if Z3 finds one within the limits (nullopt: unbounded, unknown, or no
  // allowed assignment).
  std::optional<int64_t> maximum(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises = {});

  // Like witness(), but the witness minimizes `objectives` (signed, in
  // order: lexicographic) among the allowed assignments. The model checker
  // draws its covering parameter values from the lm.assume domain with it
  // (checks/model_check.cpp). Fails = a witness (in `model`, every symbol of
  // cond, objectives and the facts they touch), Holds = none, Unknown.
  BvResult smallestWitness(const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& objectives,
                           const std::vector<ir::ExprPtr>& premises = {});

  // Every value of parameter `param` for which the lm.assume facts and
  // `premises` (defined and true) allow an assignment, ascending, when there
  // are at most `cap`: Holds with all of them; Fails when there are more
  // (`values` then holds cap + 1 of them, unsorted); Unknown / Error with
  // the reason. One incremental solver: each value found is excluded and the
  // query asked again until it is unsat (a model per value, not an
  // optimization per value as with smallestWitness). `tick` runs before
  // each query (a budget check may throw from it).
  struct Values {
    BvVerdict kind = BvVerdict::Error;
    std::vector<int64_t> values;
    std::string detail;
  };
  Values allowedValues(int param, const std::vector<ir::ExprPtr>& premises, size_t cap,
                       const std::function<void()>& tick = {});

  // Are the schedule's assumptions satisfiable? (If not, every proof is
  // vacuous.) Holds = consistent; Fails = contradictory; Unknown/Error.
  BvVerdict assumptionsConsistent();

  // From now on all queries share `total_ms` (one obligation: `cake check
  // --timeout`); each gets at most what is left, and one after it is used
  // up is Unknown ("timeout (the budget ... is used up)"). 0: no budget.
  void setBudget(unsigned total_ms);

  // From now on each optimization query (maximum, smallestWitness) gets at
  // most `rlimit` of Z3's resource units (in Limits::rlimit's scale; 0: the
  // limits' own). Z3's optimizer honours its rlimit, and a query that runs
  // out answers Unknown at any load; without it a query whose limits hold
  // a whole budget's units met the wall clock first under load, and the
  // verdict changed with the machine's load (docs/z3.md "The optimizer's
  // resource limit").
  void optimizerRlimit(uint64_t rlimit);

  // Queries issued so far (for tests and timing reports).
  int queries() const;

  // prove() and witness() may take unsat from the linear pre-check on the
  // linear facts alone, leaving out those that are not (bv_linear.h,
  // linear_subset): the same verdicts, fewer bit-blasted queries. Off by
  // default: a query answered so is not asked of the bit-vector solver,
  // whose later models (counterexample values) depend on the queries its
  // context answered before (docs/z3.md "Linear facts only").
  void linearSubsets(bool on);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when `e` mentions a parameter, loop variable or builtin.
bool hasFreeSymbols(const ir::Expr& e);

// Appends to `key` the bytes that name `e` exactly (kind, value, index and
// arguments, recursively): the key of the prover's query caches.
void appendExprKey(std::string& key, const ir::Expr& e);

// A witness search over unbounded integers (Z3's nonlinear integer
// arithmetic), for queries whose products of symbols (a persistent tile
// `lm.block_idx(0) + t * lm.grid_dim(0)`, a tile count `lm.cdiv(M, 128)`
// that divides it) the 64-bit encoding above cannot settle in time.
// Python's integers are unbounded, so the encoding is exact: `//` and `%`
// floor, lm.cdiv(a, b) = -((-a) // b), a division by zero undefined (a
// witness must be defined everywhere). The free symbols range as in
// BvProver; the schedule's lm.assume facts are premises. The cross-CTA
// store check (checks/layout_gstore.cpp) is its user.
//
// Is there an assignment where every premise and `cond` are defined and
// true? Fails = yes (the witness in `model`), Holds = none, Unknown (the
// resource limit, the timeout: "the integer solver gave up: ...", or an
// unsupported construct), Error -- BvProver's kinds, from the same
// z3w::check. `limits.rlimit` (Z3's deterministic resource units) and
// `limits.timeout_ms` bound the query; no BvProver budget applies.
BvResult intWitness(const ir::Schedule& s, const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& premises,
                    Limits limits);

// Whether intWitness's encoding translates `e` (else a query that reads it
// is Unknown, "unsupported"): every parameter an LM.i32 of `s`, every
// block index and grid size of a dimension 0..2, every operator of known
// arity. A shortcut that answers for intWitness answers only where this
// holds of everything the query would read (checks/step_bounds.h).
bool intEncodable(const ir::Schedule& s, const ir::Expr& e);

}  // namespace cake::encoder
