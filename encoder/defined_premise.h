// Where a condition may be read as a premise (docs/z3.md "Session 52
// (helper sound52)").
//
// BvProver read every fact (an lm.assume, a premise: an op's enclosing
// guards and loop ranges) as *defined and true*: no intermediate value
// leaves the signed 64-bit range, no divisor is zero, and the value is
// non-zero. A fact undefined for some values therefore dropped those values
// from every question asked under it, though Python's integers evaluate it
// there, maybe to true: the layout and structural gates said *proved* where
// a guard overflowed exactly where the op broke their rule, and sound51's
// tail cut took such a condition as a premise.
//
// The width argument below shows most facts defined without the solver:
// small comparisons of 32-bit parameters and loop variables cannot leave 64
// bits. Over the symbols' domains (BvProver's: LM.i32 parameters and loop
// variables 32-bit, lm.instance() in [0, 1024), lm.grid_dim in [1, 2^31),
// lm.block_idx in [0, 2^31)), narrowed by the lm.assume bounds `param OP
// constant`, it bounds every intermediate value. BvProver reads a fact it
// does not settle as "undefined or true" (bv_prover.cpp, facts()): where the
// fact is defined that is the same set of values, where it is not, no value
// is dropped. The tail cut, which must know whether a condition is defined
// before it takes it as a premise (sound51), asks the prover only what the
// width argument does not settle (DefinedPremises).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/schedule.h"

namespace cake::encoder {

// The range [lo, hi] of every value `e` takes, when the width argument
// shows it defined for every value of its symbols (each intermediate
// result within the signed 64-bit range, every divisor's range excluding
// zero, both operands of `and` / `or` defined); nullopt where it does not
// (which says nothing about whether `e` is defined).
struct WidthRange {
  int64_t lo = 0, hi = 0;
};
std::optional<WidthRange> widthRange(const ir::Schedule& s, const ir::Expr& e);

// The values loop variable `var` may take: between the least and the
// greatest value of its loop's bounds, where the width argument bounds
// them; nullopt where it does not (any 64-bit value). A loop variable is
// an int64 like every schedule integer: `lm.range(K * 65536, K * 65536 +
// 1)` runs past 32 bits, and a 32-bit domain (before review52) proved the
// gates over values it left out.
std::optional<WidthRange> loopVarRange(const ir::Schedule& s, int var);

// Whether the width argument shows `e` defined for every value of its
// symbols allowed by their domains and the lm.assume bounds.
bool definedByWidth(const ir::Schedule& s, const ir::Expr& e);

class DefinedPremises {
 public:
  // `holds(goal, premises)`: the prover shows `goal` for every allowed
  // value where `premises` hold (a goal counts as violated where it is
  // undefined); false where it does not, or is unsure.
  using HoldsUnder = std::function<bool(const ir::ExprPtr& goal, const std::vector<ir::ExprPtr>& premises)>;
  DefinedPremises(const ir::Schedule& s, HoldsUnder holds);

  // `e` evaluates wherever `premises` hold: by width, else by the prover
  // (the goal `e or not e`). Cached per expression (and, for the prover's
  // answer, per premises).
  bool definedUnder(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises);

  // How many definedness questions went to the prover (for tests).
  int queries() const { return queries_; }

 private:
  bool byWidth(const ir::ExprPtr& e);

  const ir::Schedule& s_;
  HoldsUnder holds_;
  std::unordered_map<const ir::Expr*, bool> width_;
  std::vector<ir::ExprPtr> keep_;  // keeps width_'s keys alive
  std::map<std::string, bool> asked_;
  int queries_ = 0;
};

}  // namespace cake::encoder
