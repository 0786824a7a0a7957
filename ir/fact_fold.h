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

// A residue the facts fix: `p % modulus == residue` for every value they allow.
struct ResidueFact {
  ExprPtr p;
  int64_t modulus = 0;
  int64_t residue = 0;
};

// The schedule with every `% d` whose operand the facts reduce rewritten
// (constants folded where the rewrite leaves none of the operand's symbols).
// The facts: those written `P % m == c` (top-level `and` conjuncts), and
// `implied` (residues the caller has shown the facts imply, whatever their
// spelling: checks/fact_residues.h). nullopt when no fact fixes a residue or
// no expression changes: the caller keeps the schedule as it is (same
// expression nodes).
std::optional<Schedule> foldModuloFacts(const Schedule& s, const std::vector<ResidueFact>& implied = {});

// The residues worth asking about (parameter, modulus): a parameter that an
// lm.assume fact not written `P % m == c` but with a `%`, `//` or lm.cdiv
// reads (`(k_tiles + 3) % 3 == 0`; a bound alone, `K > 0`, fixes none),
// under a `% d` of the schedule's expressions (d > 1 a constant), where no
// fact written so fixes its residue modulo a multiple of d.
std::vector<std::pair<int, int64_t>> residueQuestions(const Schedule& s);

}  // namespace cake::ir
