// Python integer arithmetic on 64 bits: the one place that computes `//`,
// `%`, lm.cdiv, min/max, comparisons and logic on constants. The front end
// folds constants with it, ir::evaluate (schedule.h) evaluates expressions
// with it, and the encoder splits iterations into slots and phases with it.
//
// `//` and `%` floor toward negative infinity (7 // -2 == -4, -7 % 2 == 1);
// lm.cdiv(a, b) == -((-a) // b). A result that does not fit in 64 bits, or a
// zero divisor, gives nullopt: the caller decides whether that is an error
// (the front end: type.int-overflow / type.division-by-zero) or an unknown
// value.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/schedule.h"

namespace cake::ir {

std::optional<int64_t> floorDiv(int64_t a, int64_t b);
std::optional<int64_t> floorMod(int64_t a, int64_t b);
std::optional<int64_t> ceilDiv(int64_t a, int64_t b);   // lm.cdiv

// True for the operator kinds (Neg ... Not); false for leaves.
bool isIntOperator(ExprKind k);
// One operator applied to constants: `a` alone for the unary Neg and Not,
// `a` and `b` for the others. A leaf kind is a logic error (thrown).
std::optional<int64_t> applyIntOp(ExprKind k, int64_t a, int64_t b = 0);

}  // namespace cake::ir
