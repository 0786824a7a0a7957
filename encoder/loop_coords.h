#pragma once
// Global coordinates that move with a loop (docs/z3.md "A global tensor's
// rows per loop iteration", helper glob44, session 44). A loop whose
// iterations each load and store their own row of one global tensor
// (`coords=(p, 32 * w)`) touches other elements every iteration, so lap
// induction never saw the same bytes in two periods. Where the accesses of
// different loop values can never share an element, and every access
// names the loop variable through one term `c * v` per dimension (the same
// c in every access), a proof's build places each access with `c * v`
// replaced by `|c| * (v mod M)`: the boxes of one loop value move together
// (their overlaps are kept), and boxes of different values, which never
// met, may now meet (only races are added).

#include <map>

#include "ir/schedule.h"

namespace cake::encoder {

// The term of `coord` that reads a loop variable: `coord` is a sum (`+`,
// `-`, unary `-`) of terms exactly one of which reads a loop variable, and
// that one is the variable times constants; every other term reads only
// constants and lm.instance(). nullptr for a coordinate that reads no loop
// variable, and for any other shape (`p + q`, `p % 2`, `p * n`, `p + n`).
const ir::Expr* loopTermOf(const ir::ExprPtr& coord);

// How a proof's build places a coordinate `c * v + g`: at `g + |c| * (v mod
// modulus)`. Any placement that is a function of the loop value v keeps
// the overlaps of one value's boxes (all moved alike) and only adds
// overlaps between values, which never shared an element; the modulus (twice
// the lcm of the loops' steps) keeps adjacent iterations' boxes apart, so
// that an access of iteration v + 1 meets one of iteration v only where
// the schedule's boxes do, while iteration v + modulus lands on v's boxes
// and lap induction sees a period.
struct LoopFold {
  const ir::Expr* term = nullptr;  // c * v, a node of the coordinate
  int64_t factor = 0;              // c
  int64_t modulus = 0;
};

// For the global tensors the CTA reads and writes: every coordinate of a
// tensor (of one rank) whose accesses move together with a loop value, by
// its slot in its op's coords (not its node: one node, such as the loop
// variable, can be the coordinate of several tensors' accesses, and another
// tensor's may not qualify), mapped to its fold. A tensor qualifies where
//  * every coordinate of every access that reads a loop variable has a loop
//    term, and each access names one loop variable;
//  * the dimensions with a loop term, and each one's constant factor, are
//    the same in every access (a nonempty set);
//  * the rest of every such coordinate (the term at 0) is >= 0 for every
//    instance of its role, and its box (the tile's unsliced extent in that
//    dimension, an upper bound) stays inside the model layout;
//  * in one of those dimensions all the boxes of one loop value fit in
//    |c| elements: max(rest + extent) - min(rest) <= |c|, so two loop values
//    (|c| apart or more) never share an element.
// Accesses of different loop values are then disjoint, and those of one
// value are all moved alike: a proof's build may place them as LoopFold
// says (encoder/system.cpp globalCoord). Loops with a step that is not a
// constant, or larger than 1024, are not folded.
std::map<const ir::ExprPtr*, LoopFold> loopOwnedCoords(const ir::Schedule& s, int address_bits);

}  // namespace cake::encoder
