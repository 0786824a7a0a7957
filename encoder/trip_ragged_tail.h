// Loops whose last iteration alone differs, peeled (docs/z3.md "A ragged
// last tile peeled", helper hunt53, session 53).
//
// `for t in lm.range(0, lm.cdiv(R, 128)):` whose body reads the tile's
// valid length `min(R - 128 * t, 128)` (CUB's and Paddle's valid_item, any
// block loop over a row whose last tile is partial): every iteration but
// the last reads 128 there, so the body is the same text on every tile but
// the last, and lap induction, which refuses a body that reads the loop's
// parameter besides its trip count, takes the copy
//     for t in lm.range(0, lm.cdiv(R, 128) - 1):  body, min(...) read as 128
//     if 0 < lm.cdiv(R, 128):                      body, t read as lm.cdiv(R, 128) - 1
// whose one remaining read of R is a guard outside any loop (the guards'
// cases take it).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "encoder/trip_guards.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

struct PeeledTails {
  std::shared_ptr<ir::Schedule> s;  // the copy
  std::string text;                 // "lm.range(0, lm.cdiv(R, 128)) with its last iteration peeled (...)"
  int peeled = 0;                   // how many loops
};

// Every `for v in lm.range(lo, hi)` (step 1) whose body, read in the
// iterations before the last (premises: lo <= v, v + 1 < hi, the ranges of
// the loops around it, 0 <= lm.instance() < the role's instance count),
// has a `min(a, b)` / `max(a, b)` node or an `if` condition that reads v
// and whose value `holds` shows (under the lm.assume facts) to be one
// operand / one outcome there, is replaced by
//  * the loop over [lo, hi - 1) with each such node read as that operand
//    and each such condition as the constant outcome (the `if` kept, so
//    the derived expect_tx plan's statement lists stay as written), and
//  * right after it, `if lo < hi:` (the constant 1 where `holds` shows it)
//    around the body with v read as hi - 1, the loops inside it given
//    variables of their own.
// For every allowed binding the copy builds the schedule's systems: with
// hi <= lo both build nothing of the loop; else the iterations lo..hi - 2
// evaluate every decided node and condition to the value the copy reads
// (the builder evaluates a condition only to choose the block it builds),
// and the last iteration is the body at v = hi - 1. A node or condition
// that reads a variable of a loop inside the body is not asked (its range
// is no premise), nor one that is not shown defined where the premises hold
// (docs/z3.md "sound51"), nor, in a modelled cluster, one that reads a
// block index or a grid size. A loop whose variable a loop around it binds
// too is not peeled, nor anything below it, nor a loop whose body issues a
// TMA load (a decided node could make two loads' selectors alike and so
// merge their derived expect_tx batches). nullopt: no loop is peeled.
std::optional<PeeledTails> peelRaggedLastIterations(const ir::Schedule& s, const HoldsUnder& holds);

}  // namespace cake::encoder::trip
