// The one walk over a schedule's expression fields, for the rewrites that
// keep every value (ir/fact_fold.h; the trip proof's respelled bounds,
// encoder/trip_proof.cpp).
#pragma once

#include <functional>

#include "ir/schedule.h"

namespace cake::ir {

// Call `fn(ExprPtr&)` on every expression field of the schedule but its
// lm.assume facts: pools, views, TMEM, registers, then each role body's
// statements and ops in order. A field may be null (an absent operand).
void forEachExprField(Schedule& s, const std::function<void(ExprPtr&)>& fn);
// The same fields, read only.
void forEachExprField(const Schedule& s, const std::function<void(const ExprPtr&)>& fn);
// The expression fields of one block's statements and ops (a role body, a
// loop's body), nested blocks included.
void forEachExprField(Block& b, const std::function<void(ExprPtr&)>& fn);

}  // namespace cake::ir
