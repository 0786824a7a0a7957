// Residues the lm.assume facts fix, folded into the schedule's expressions.
//
// A fact `P % m == c` (m a positive constant) fixes P's residue modulo m and
// every divisor of m. Under an enclosing `% d` with d dividing m, P may then be
// read as c: sums, differences, negations and products keep their residue when
// an operand is replaced by one of the same residue, and so does an inner
// `Y % e` with d dividing e (Y % e = Y - e * (Y // e)). So with
// lm.assume(k_tiles % 3 == 0) the guard `k == (3 - t * k_tiles % 3) % 3`
// reads `k == 0` (mKernel's AG+GEMM ring, docs/z3.md "Residues the facts
// fix"). Python's floor `%` keeps each rewrite an identity for every value the
// facts allow, so no check's verdict depends on whether it ran; the proofs,
// which read guards as written, see the simpler form.
#pragma once

#include <optional>

#include "ir/schedule.h"

namespace cake::ir {

// The schedule with every `% d` whose operand the facts reduce rewritten
// (constants folded where the rewrite leaves none of the operand's symbols).
// nullopt when no fact fixes a residue or no expression changes: the
// caller keeps the schedule as it is (same expression nodes).
std::optional<Schedule> foldModuloFacts(const Schedule& s);

}  // namespace cake::ir
