// Equal for every value of the free symbols: two integer expressions
// compared by a canonical form (a polynomial with integer coefficients over
// atoms), not by their spelling. `n + 0`, `1 * n`, `2 * n` and `n + n`,
// `(n + 1) - 1` are one form; an operation the polynomial does not model
// (`//`, `%`, lm.cdiv, min, max, comparisons and logic) is an atom of its
// operator and its operands' canonical forms (min and max with their
// operands sorted), so `lm.cdiv(n + 0, 64)` is `lm.cdiv(n, 64)`; a ceiling
// division by a constant c > 1 is the floor division of x + c - 1 by c
// (`lm.cdiv(K, 64)` is `(K + 63) // 64`: an identity for every integer K,
// no sign fact needed; not for c <= 0).
//
// Sound in one direction only: equal forms mean equal values for every
// assignment (each rewrite is an identity of Python's integers); different
// forms mean nothing (`n // 1 * 1` and `n` are the same value under other
// forms, `n` and `m` under lm.assume(n == m)). A coefficient that leaves
// the signed 64-bit range gives up (not equal).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "ir/schedule.h"

namespace cake::ir {

// Loop variable renaming: a loop variable of `b` is read as the one it maps
// to (the caller's claim that the two always hold the same value: loops
// paired at the same iteration).
using LoopVarRename = std::map<int, int>;

// true: a and b (b's loop variables renamed) have the same value for every
// assignment of the free symbols; false: not shown.
bool equalForAllValues(const Expr& a, const Expr& b, const LoopVarRename& rename_b = {});

// e spelled as its canonical form: the sum of its monomials, each its
// coefficient times the product of its atoms, the constant last; equal to
// e for every value (each atom spelled by an expression of its form). An
// atom of the form of one of `spellings` is spelled by it, first in its
// monomial's product (`(t + 1) * n - n + k` with spellings {t, n} is `t * n
// + k`). nullptr: a coefficient out of the 64-bit range.
ExprPtr polynomialSpelling(const ExprPtr& e, const std::vector<ExprPtr>& spellings = {});

// Whether e's canonical form has a monomial that each of `factors` (each
// of the form of one atom) divides.
bool hasMonomialWith(const Expr& e, const std::vector<ExprPtr>& factors);

// a - b where the forms differ by a constant (the same value for every
// assignment of the free symbols); nullopt: not shown.
std::optional<int64_t> constantDifference(const Expr& a, const Expr& b);

}  // namespace cake::ir

namespace cake::ir {
// `e` with its loop variables renamed (those `rename` maps; the others kept).
ExprPtr renameLoopVars(const ExprPtr& e, const LoopVarRename& rename);
// `e` with loop variable `var` replaced by `with`.
ExprPtr substituteLoopVar(const ExprPtr& e, int var, const ExprPtr& with);
// `e` with every symbol of this kind and index (a parameter, a loop
// variable) replaced by `with`; nodes that read none are shared.
ExprPtr substituteSymbol(const ExprPtr& e, ExprKind kind, int index, const ExprPtr& with);
}  // namespace cake::ir
