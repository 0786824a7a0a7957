#pragma once
// Global coordinates that move with a loop (docs/z3.md "A global tensor's
// rows per loop iteration", helper glob44, session 44). A loop whose
// iterations each load and store their own row of one global tensor
// (`coords=(p, 32 * w)`) touches other elements every iteration, so lap
// induction never saw the same bytes in two periods. Where the accesses of
// different loop values can never share an element, and every access
// names the loop variable through one term `c * v` per dimension (the same
// c in every access), a proof's build places each access at its coordinates
// with that term at 0: the boxes of one loop value move together (their
// overlaps are kept), and boxes of different values, which never met, may
// now meet (only races are added).

#include <map>

#include "ir/schedule.h"

namespace cake::encoder {

// The term of `coord` that reads a loop variable: `coord` is a sum (`+`,
// `-`, unary `-`) of terms exactly one of which reads a loop variable, and
// that one is the variable times constants; every other term reads only
// constants and lm.instance(). nullptr for a coordinate that reads no loop
// variable, and for any other shape (`p + q`, `p % 2`, `p * n`, `p + n`).
const ir::Expr* loopTermOf(const ir::ExprPtr& coord);

// For the global tensors the CTA reads and writes: every coordinate of a
// tensor (of one rank) whose accesses move together with a loop value,
// mapped to its loop term (loopTermOf). A tensor qualifies where
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
// value are all moved by the same c * value: a proof's build may place them
// with the term at 0 (encoder/system.cpp globalCoord).
std::map<const ir::Expr*, const ir::Expr*> loopOwnedCoords(const ir::Schedule& s, int address_bits);

}  // namespace cake::encoder
