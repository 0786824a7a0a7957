// The proof for every trip count (encoder/trip_proof.cpp): a syntactic
// shortcut for "e moves by the same amount every period", asked before
// the bit-vector prover.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/schedule.h"

namespace cake::encoder::trip {

// Is some sub-expression of e (e itself included) equal to `target`?
bool containsExpr(const ir::Expr& e, const ir::Expr& target);

// e(x + P) - e(x), with x every sub-expression of e equal to `target`, when
// e's syntax shows it is one constant for every integer x (exact integer
// arithmetic, the other symbols held): x steps by P, sums, differences,
// negations, products with a constant, max / min of arguments that step
// alike, and floor division / modulo by a nonzero constant c of an argument
// whose step d is a multiple of c (floor((a + d) / c) = floor(a / c) + d / c,
// (a + d) mod c = a mod c). A sub-expression free of x steps by 0. Nullopt
// when these rules do not decide (the prover is asked then).
std::optional<int64_t> constantStep(const ir::Expr& e, const ir::Expr& target, int64_t P);

}  // namespace cake::encoder::trip
