// Loops whose tail a guard turns off, cut where the tail starts (docs/z3.md
// "A loop's dead tail cut at a guard's threshold", helper two50, session 50).
//
// `for i in lm.range(0, n_iters): if g + 2 * i < n_stages: ...` with
// lm.assume(n_stages <= 2 * n_iters): from i = lm.cdiv(n_stages, 2) on no
// iteration builds an operation in any instance, so the loop builds what
// `for i in lm.range(0, lm.cdiv(n_stages, 2))` builds, and the schedule reads
// its second parameter n_iters nowhere else: the copy has one trip
// expression where the schedule had two parameters.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "encoder/trip_guards.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

struct CutTails {
  std::shared_ptr<ir::Schedule> s;  // the copy, each cut loop's bound replaced by its threshold
  std::string text;                 // "lm.range(0, n_iters) cut at lm.cdiv(n_stages, 2)"
  int cut = 0;                      // how many loops
};

// Every `for v in lm.range(lo, hi)` (step 1) for which a threshold K, an
// expression of parameters and constants, is shown by `holds` (under the
// lm.assume facts and the premises given) to satisfy
//  * K <= hi, with the ranges of the loops around the loop as premises, and
//  * every operation of the body lies under an `if` whose branch is not
//    taken when v >= K (premises: lo <= v < hi, v >= K, the ranges of the
//    loops around it and inside the body, 0 <= lm.instance() < the role's
//    instance count, the conditions of the `if`s above it),
// has its bound replaced by K. For every allowed binding the copy's loop
// runs v over [lo, K), a prefix of [lo, hi), and the iterations it drops
// build no instruction (the builder evaluates a condition only to choose
// the block it builds), so the copy builds the schedule's systems; K is
// evaluated once per binding like hi (it reads no loop variable). The
// candidates for K come from the conditions that read v and a parameter:
// `a < b` with a - b = c * v + r (c > 0 a constant) is not taken from v >=
// lm.cdiv(-r, c) on (`a <= b`: lm.cdiv(1 - r, c)), r's other loop
// variables and lm.instance() read at their least or their greatest value;
// each candidate is only a guess until `holds` proves both goals. A loop
// whose variable a loop around it binds too is not cut, nor anything in a
// modelled cluster that reads a block index. nullopt: no loop is cut.
std::optional<CutTails> cutDeadTails(const ir::Schedule& s, const HoldsUnder& holds);

}  // namespace cake::encoder::trip
