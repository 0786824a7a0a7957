// Integer expressions compared by value over every assignment a schedule's
// lm.assume facts allow: the one comparison behind the builder's
// cross-role loop pairing (encoder/system.cpp, data.stale-read's skip
// rule) and the trip proof's choice of one spelling per trip expression
// (encoder/trip_proof.cpp, respelledBounds). docs/z3.md "Cross-role loops
// paired by value" and "Loop bounds respelled by value".
//
// In order, each step answering only where it is exact:
//  1. Equal where every pair is sameExpr or has one canonical form
//     (ir::equalForAllValues: an identity of Python's integers);
//  2. Different where a pair of constants differs (at every assignment),
//     or where both sides of a pair evaluate, defined, to different values
//     at a sample assignment that lies in BvProver's domains and makes
//     every lm.assume fact defined and true (a counterexample Z3 could
//     return: the answer Z3 gives when it finishes);
//  3. else BvProver under the facts: Holds is Equal, a defined
//     counterexample Different, anything else Unknown.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "encoder/bv_prover.h"
#include "ir/expr_canon.h"
#include "ir/schedule.h"

namespace cake::encoder {

enum class ValueEquality { Equal, Different, Unknown };

// A loop statement's start, end and step; a missing step is the constant 1
// (the one rule for it wherever loops are compared). lo or hi may be null
// (a malformed loop): a comparison with a null side is Unknown.
struct LoopBounds {
  ir::ExprPtr lo, hi, step;
};
LoopBounds loopBounds(const ir::Stmt& loop);

// One question's limits where bounds are compared (the builder's pairing,
// the proof's respelling): 1 s and 2M resource units.
inline constexpr Limits kBoundQueryLimits{.timeout_ms = 1000, .rlimit = 2000000};

using ExprPairs = std::vector<std::pair<ir::ExprPtr, ir::ExprPtr>>;

class ValueComparer {
 public:
  // The prover (for step 3) is made on the first question that needs it.
  ValueComparer(const ir::Schedule& s, Limits limits);
  ~ValueComparer();
  // Does every allowed assignment give each pair (the second's loop
  // variables renamed by `rename`) equal values?
  ValueEquality compare(const ExprPairs& pairs, const ir::LoopVarRename& rename = {});
  // Both loops' start, end and step (b's loop variables renamed).
  ValueEquality compareLoops(const ir::Stmt& a, const ir::Stmt& b, const ir::LoopVarRename& rename = {});
  // An allowed assignment at which `e` is defined and takes a value outside
  // `seen`: the first sample that gives one (the sizes smallest first),
  // else the prover's witness with the least parameters it reads; nullopt
  // where neither finds one. A loop pair's corner for the bounded check
  // (checks/model_check.cpp, pairedLoopCorners).
  std::optional<ir::EvalEnv> valueOutside(const ir::ExprPtr& e, const std::set<int64_t>& seen);
  // Queries sent to the prover so far (tests: the cheap steps answered).
  int proverQueries() const { return prover_queries_; }
  // At most this many prover queries (step 3) from now on: past them step 3
  // answers Unknown (a caller that asks about many expressions, the proof's
  // respelling, stays cheap; never Equal without a proof).
  void capProverQueries(int n) { prover_cap_ = prover_queries_ + n; }

 private:
  bool differAtSomeSample(const ExprPairs& pairs);
  const std::vector<ir::EvalEnv>& samples();
  void addSamplesAt(int64_t v, std::vector<ir::EvalEnv>& out) const;
  ValueEquality byProver(const ExprPairs& pairs);

  const ir::Schedule& s_;
  Limits limits_;
  std::unique_ptr<BvProver> prover_;
  std::vector<ir::EvalEnv> samples_;
  bool sampled_ = false;
  int prover_queries_ = 0;
  int prover_cap_ = -1;  // -1: no cap
};

}  // namespace cake::encoder
