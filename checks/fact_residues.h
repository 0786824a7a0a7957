// Residues the lm.assume facts imply, whatever their spelling.
//
// ir::foldModuloFacts reads the residues of facts written `P % m == c`; a
// fact spelled otherwise (`(k_tiles + 3) % 3 == 0`, `(2 * k_tiles) % 3 == 0`,
// `k_tiles // 3 * 3 == k_tiles`) fixed none, and the guard that the residue
// simplifies (`k == (3 - t * k_tiles % 3) % 3` in mKernel's ring) stayed one
// the covering values cannot place: the correct kernel was *unknown*
// (docs/z3.md "Soundness review, session 41").
#pragma once

#include <vector>

#include "ir/fact_fold.h"

namespace cake::checks {

// For each of ir::residueQuestions(s): `P % d == r` where the solver over
// the integers shows that every value the facts allow has residue r (a
// witness of the facts gives r; no witness of the facts with `P % d != r`
// exists). A question the solver does not settle gives nothing.
std::vector<ir::ResidueFact> impliedResidues(const ir::Schedule& s);

}  // namespace cake::checks
