// The linear pre-check of BvProver (docs/z3.md "Linear queries before
// bit-blasting"). Z3-free interface; encoder/bv_linear.cpp asks Z3.
//
// A BvProver query is a set of facts over the free symbols (the domains,
// the schedule's lm.assume facts, the premises, the goal's negation) in
// Python integer semantics with a definedness condition: no intermediate
// value leaves the signed 64-bit range, no divisor is zero. BvProver
// decides it over 64-bit bit-vectors, which is exact where the definedness
// condition holds. The same facts are also exact over Z3's mathematical
// integers when every intermediate value carries the same range condition:
// where both are defined the values agree, and the definedness conditions
// are the same predicate on the symbols (each operation's range check is
// taken on the operands' values, which agree wherever the operands are
// defined). Over integers the query is linear (QF_LIA, a decision
// procedure) when every product has a factor without free symbols and
// every division or remainder a constant divisor; bit-blasting 64-bit
// adders and comparators took 3-150 ms per query, the linear solver about
// 1 ms.
//
// decideLinear() answers only what it decides exactly: nullopt when a fact
// is not linear, when the bit-vector translation would refuse it (an
// unsupported construct: BvProver then says Unknown), or when Z3's linear
// solver does not answer within its resource limit. The caller then asks
// the bit-vector solver as before.
#pragma once

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "encoder/z3_engine.h"
#include "ir/schedule.h"

namespace z3 {
class context;
}

namespace cake::encoder::lia {

// A free symbol as BvProver names it: (kind, index), kind 'p' parameter,
// 'v' loop variable, 'i' lm.instance(), 'b' lm.block_idx, 'g' lm.grid_dim.
using SymbolKey = std::pair<char, int>;

// BvProver's cone of influence: the facts (anything with a `syms` set)
// that share a symbol with the goal or have none, transitively. Returns
// their indices; `syms` gets every symbol of the goal and of those facts.
// A fact over other symbols cannot change the answer (unless the facts
// contradict each other on their own, which assumptionsConsistent()
// reports).
template <class Part>
std::vector<size_t> cone(const std::set<SymbolKey>& goal, const std::vector<Part>& fs, std::set<SymbolKey>& syms) {
  syms = goal;
  std::vector<bool> in(fs.size(), false);
  std::vector<size_t> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < fs.size(); ++i) {
      if (in[i]) continue;
      bool touches = fs[i].syms.empty();
      for (const SymbolKey& k : fs[i].syms)
        if (syms.count(k)) touches = true;
      if (!touches) continue;
      in[i] = true;
      grew = true;
      out.push_back(i);
      syms.insert(fs[i].syms.begin(), fs[i].syms.end());
    }
  }
  return out;
}

enum class Bad {
  Violated,  // prove(goal): some allowed assignment where the goal is undefined or false
  Holds,     // witness(cond): some allowed assignment where cond is defined and true
  Nothing,   // assumptionsConsistent(): some allowed assignment at all (every fact, no goal)
};

// Is there an allowed assignment (symbol domains, the schedule's
// assumptions, `premises`) with the `bad` condition on `goal`? true: sat,
// false: unsat, nullopt: not decided here. The facts are those of
// BvProver's cone of influence (every fact when `all_facts`), so the answer
// is BvProver's. Asked in BvProver's own context `ctx`: a second context
// alive beside it costs 4,000 page faults (Z3's tables, about 17 MB) the
// first time, 60 ms of CPU without huge pages.
//
// linear_subset (prove and witness only): a fact that is not linear (a
// product of symbols, a symbolic divisor: never a construct BvProver
// refuses) is left out instead of handing the query on, and then only
// unsat is an answer: facts left out only remove assignments, so a query
// unsat without them is unsat with them (docs/z3.md "Linear facts only").
//
// weak_facts[i]: fact i (the schedule's assumptions, then `premises`)
// reads "undefined or true" (BvProver's reading of one that may overflow,
// sound52); missing: defined and true.
std::optional<bool> decideLinear(z3::context& ctx, const ir::Schedule& s, const ir::Expr& goal, Bad bad,
                                 const std::vector<ir::ExprPtr>& premises, bool all_facts, const Limits& limits,
                                 bool linear_subset = false, const std::vector<bool>& weak_facts = {});

// Queries decided here and handed on since the process started (for
// benchmarks and tests).
struct Counts {
  long decided = 0, handed_on = 0;
};
Counts counts();

// On by default; off, every query goes to the bit-vector solver (for tests
// that compare the two, and for measuring).
void setEnabled(bool on);

}  // namespace cake::encoder::lia
